// `sandbox-docker-cli.ts <real docker> <args>...`: what the wrapper's `docker` runs, so kind's
// `--privileged` becomes every capability but the one a restricted sandbox withholds.
import { spawn } from "node:child_process";
import { sandboxDockerArgs } from "./sandbox-docker.ts";

const [realDocker, ...args] = process.argv.slice(2);
if (!realDocker) {
  process.stderr.write("usage: sandbox-docker-cli.ts <real docker> <docker arguments>...\n");
  process.exit(2);
}
const child = spawn(realDocker, sandboxDockerArgs(args), { stdio: "inherit" });
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
