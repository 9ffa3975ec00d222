import { parseArgs } from "node:util";
import { buildInfo } from "../../release/version.ts";
import { type Command, UsageError } from "../command.ts";

export const command: Command = {
  name: "version",
  summary: "Print the operator's version and the commit it was built from.",
  usage: `Usage: livepeer-operator version [--json]

Prints the version (package.json, the chart's appVersion and the image tag) and the git commit
it was built from: in an image, the commit the image build recorded in /app/build-info.json; in a
checkout, HEAD ("-dirty" with uncommitted changes).

  --json   {"version": ..., "commit": ..., "node": ...} on one line`,
  async run(args) {
    let json = false;
    try {
      json = Boolean(parseArgs({ args, options: { json: { type: "boolean" } } }).values.json);
    } catch (err) {
      throw new UsageError(`${(err as Error).message}; see 'livepeer-operator version --help'`);
    }
    const info = buildInfo();
    process.stdout.write(
      json
        ? `${JSON.stringify({ version: info.version, commit: info.commit, node: process.version })}\n`
        : `livepeer-operator ${info.version} (commit ${info.commit}, node ${process.version})\n`,
    );
    return 0;
  },
};
