// Go's log/slog default output, which go-livepeer's ai/worker package uses (the node never sets a
// slog handler, so lines go through the standard logger): "2026/11/24 15:44:23 INFO msg key=value".

function goLogTime(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${now.getUTCFullYear()}/${p(now.getUTCMonth() + 1)}/${p(now.getUTCDate())} ${p(now.getUTCHours())}:${p(now.getUTCMinutes())}:${p(now.getUTCSeconds())}`;
}

/** slog's text value: quoted only when it has spaces, quotes, '=' or is empty. */
function slogValue(value: string | number): string {
  const text = String(value);
  return text === "" || /[\s"=]/.test(text) ? JSON.stringify(text) : text;
}

export function slogLine(
  level: "INFO" | "WARN" | "ERROR",
  message: string,
  attrs: readonly (readonly [string, string | number])[] = [],
  now?: Date,
): string {
  const tail = attrs.map(([k, v]) => ` ${k}=${slogValue(v)}`).join("");
  return `${goLogTime(now)} ${level} ${message}${tail}`;
}
