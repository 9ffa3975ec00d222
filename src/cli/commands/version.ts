import { readFileSync } from "node:fs";
import type { Command } from "../command.ts";

const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
  version: string;
};

export const command: Command = {
  name: "version",
  summary: "Print the operator's version.",
  usage: "Usage: livepeer-operator version",
  async run() {
    process.stdout.write(`livepeer-operator ${pkg.version} (node ${process.version})\n`);
    return 0;
  },
};
