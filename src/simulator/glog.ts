// Log lines in glog's format, as go-livepeer prints them:
// "Lmmdd hh:mm:ss.uuuuuu threadid file:line] message" (L = I, W, E or F).
export type GlogLevel = "I" | "W" | "E" | "F";

export function formatGlog(
  level: GlogLevel,
  where: string,
  message: string,
  now = new Date(),
  pid = process.pid,
): string {
  const two = (n: number) => String(n).padStart(2, "0");
  const stamp =
    `${two(now.getMonth() + 1)}${two(now.getDate())} ` +
    `${two(now.getHours())}:${two(now.getMinutes())}:${two(now.getSeconds())}.` +
    `${String(now.getMilliseconds() * 1000).padStart(6, "0")}`;
  return `${level}${stamp} ${String(pid).padStart(7, " ")} ${where}] ${message}`;
}

const GLOG_HEADER = /^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\d+ [^\]]+\] /;

/** A line that already carries a glog header (or comes from FFmpeg/LPMS) is printed verbatim. */
export function looksLikeNodeLine(line: string): boolean {
  return (
    GLOG_HEADER.test(line) ||
    /^\[[\w-]+ @ 0x[0-9a-f]+\]/.test(line) ||
    /^(ERROR|WARNING): \w+\.c:\d+\]/.test(line)
  );
}
