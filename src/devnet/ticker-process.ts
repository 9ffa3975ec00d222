// The round ticker as its own process, started by `devnet up --block-interval` beside the chain
// (and stopped by `devnet down` by its pid): node ticker-process.{ts,js} with the arguments
// below. It exits on SIGTERM/SIGINT and once the chain process is gone.
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { isAlive } from "./processes.ts";
import { runRoundTicker } from "./ticker.ts";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: "string" },
      "chain-id": { type: "string" },
      "rounds-manager": { type: "string" },
      "block-interval-ms": { type: "string" },
      "chain-pid": { type: "string" },
    },
  });
  const chainPid = Number(values["chain-pid"]);
  const stop = new AbortController();
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => process.exit(0));
  const watch = setInterval(() => {
    if (!isAlive(chainPid)) {
      process.stdout.write(`[ticker] the chain (pid ${chainPid}) is gone: stopping\n`);
      stop.abort();
      process.exit(0);
    }
  }, 1_000);
  await runRoundTicker({
    url: values.url!,
    chainId: Number(values["chain-id"]),
    roundsManager: values["rounds-manager"]!,
    blockIntervalMs: Number(values["block-interval-ms"]),
    signal: stop.signal,
    log: (line) => process.stdout.write(`${new Date().toISOString()} ${line}\n`),
  });
  clearInterval(watch);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err: unknown) => {
    process.stderr.write(`[ticker] ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
