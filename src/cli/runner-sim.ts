// What the two runner stand-ins' commands (ai-runner-sim, live-runner-sim) share: parse the
// options (a bad one is a usage error), start, print READY with the URL once listening, and stop
// on SIGINT/SIGTERM. Exit status 1 when it cannot listen.
import { RunnerArgsError } from "../simulator/ai-runner/runner-args.ts";
import { UsageError } from "./command.ts";

interface RunnerStandIn {
  listening: Promise<string>;
  stop(): Promise<void>;
}

export async function runRunnerSimulator<O>(
  usage: string,
  parse: () => O,
  start: (options: O) => RunnerStandIn,
  readyFacts: (options: O) => Record<string, string>,
): Promise<number> {
  let options: O;
  try {
    options = parse();
  } catch (err) {
    if (err instanceof RunnerArgsError)
      throw new UsageError(err.unknownOption ? `${err.message}\n\n${usage}` : err.message);
    throw err;
  }
  const runner = start(options);
  const stopped = new Promise<string>((resolve) => {
    process.once("SIGINT", () => resolve("interrupt"));
    process.once("SIGTERM", () => resolve("terminated"));
  });
  const outcome = await Promise.race([
    runner.listening.then(
      (url) => ({ url }),
      (err: Error) => ({ error: err }),
    ),
    stopped.then(() => ({ signalled: true as const })),
  ]);
  if ("error" in outcome) return 1;
  if ("url" in outcome) {
    process.stdout.write(`READY ${JSON.stringify({ url: outcome.url, ...readyFacts(options) })}\n`);
    await stopped;
  }
  await runner.stop();
  return 0;
}
