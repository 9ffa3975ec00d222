// Named steps with their durations, reported one line each (the CLI prints them on stderr).

export type Progress = (line: string) => void;

export const silent: Progress = () => {};

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

/**
 * Runs one named step and reports `name: outcome (duration)`. The step returns its result and,
 * optionally, a short outcome ("reused", an address ...).
 */
export async function step<T>(
  progress: Progress,
  name: string,
  run: () => Promise<T>,
  outcome?: (result: T) => string,
): Promise<T> {
  const t0 = performance.now();
  try {
    const result = await run();
    const said = outcome?.(result);
    progress(`[devnet] ${name}${said ? `: ${said}` : ""} (${seconds(performance.now() - t0)})`);
    return result;
  } catch (err) {
    progress(`[devnet] ${name}: FAILED after ${seconds(performance.now() - t0)}`);
    throw err;
  }
}
