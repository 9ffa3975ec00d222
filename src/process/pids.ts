// Processes this project starts are checked and stopped by pid only (never by name), and waited
// for by condition rather than by a fixed sleep. Shared by the dev harness and the devnet.

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the pid is gone. */
export async function stopPid(pid: number, graceMs = 5_000): Promise<void> {
  if (!isAlive(pid)) return;
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(25);
  if (!isAlive(pid)) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {}
  while (isAlive(pid)) await sleep(20);
}
