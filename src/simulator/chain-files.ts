// The files an on-chain node opens before anything else: the keystore and the password file. The
// simulator checks them as the node would meet them, so a wrongly mounted Secret shows up here
// and not first in production.
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { NodeFlags } from "../node/config/flag-table.ts";
import { OFFCHAIN } from "../node/config/networks.ts";
import { passwordFileProblem } from "../node/config/password-file.ts";
import type { StartupLine } from "./startup.ts";

/** Lines to print and whether the node stops there. */
export function chainFileProblems(flags: NodeFlags, cwd: string): { lines: StartupLine[]; fatal: boolean } {
  if ((flags.network ?? OFFCHAIN) === OFFCHAIN) return { lines: [], fatal: false };
  const keystore = flags.ethKeystorePath;
  if (keystore) {
    try {
      statSync(path.resolve(cwd, keystore));
    } catch {
      return { lines: [["F", "starter.go:822", "provided -ethKeystorePath was not found"]], fatal: true };
    }
  }
  const password = flags.ethPassword;
  if (password) {
    let content: Buffer | undefined;
    try {
      const file = path.resolve(cwd, password);
      if (statSync(file).isFile()) content = readFileSync(file);
    } catch {
      content = undefined; // not a file: the node takes the value as the password itself
    }
    const problem = content === undefined ? undefined : passwordFileProblem(content);
    if (problem) {
      return {
        lines: [
          ["W", "simulator.go:7", `Simulated: ${problem.message} - ${problem.fix}`],
          [
            "E",
            "starter.go:885",
            "Error unlocking Ethereum account: could not decrypt key with given password",
          ],
        ],
        fatal: true,
      };
    }
  }
  return { lines: [], fatal: false };
}
