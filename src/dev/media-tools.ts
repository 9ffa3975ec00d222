// ffmpeg and ffprobe, from Debian's `ffmpeg` package, for the tests that decode what the
// simulated gateway serves (its HLS segments read by ffprobe, ffmpeg publishing by RTMP) and for
// `push-stream --ffmpeg`. Installed on first use when we are root, as PostgreSQL is
// (src/dev/postgres.ts); elsewhere the error names the command to run.
import { execFileSync } from "node:child_process";
import { aptInstall, installCommand } from "./debian/packages.ts";

export const MEDIA_TOOLS = ["ffmpeg", "ffprobe"] as const;
const PACKAGE = "ffmpeg";

/** The tools of MEDIA_TOOLS that do not run here (`<tool> -version`). */
export function missingMediaTools(): string[] {
  return MEDIA_TOOLS.filter((tool) => {
    try {
      execFileSync(tool, ["-version"], { stdio: "ignore", timeout: 30_000 });
      return false;
    } catch {
      return true;
    }
  });
}

/** ffmpeg and ffprobe on the PATH: installs Debian's package when one is missing and we are root. */
export async function ensureMediaTools(progress: (line: string) => void = () => {}): Promise<void> {
  const missing = missingMediaTools();
  if (!missing.length) return;
  if (process.getuid?.() !== 0) {
    throw new Error(
      `${missing.join(" and ")} not found; install Debian's package as root:\n  sudo ${installCommand([PACKAGE]).join(" ")}`,
    );
  }
  await aptInstall([PACKAGE], (line) => progress(`[media] ${line}`));
  const still = missingMediaTools();
  if (still.length) {
    throw new Error(
      `${PACKAGE} is installed but ${still.join(" and ")} does not run; reinstall it:\n  ${installCommand([PACKAGE]).join(" ")} --reinstall`,
    );
  }
}
