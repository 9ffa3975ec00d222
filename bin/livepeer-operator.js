#!/usr/bin/env node
// Entry point of the `livepeer-operator` command. It needs Node >= 24: on an older Node it re-runs
// itself with the Node 24 that `npm install` put in node_modules (the `node` dev dependency).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const major = Number(process.versions.node.split(".")[0]);
if (major < 24) {
  const node24 = path.join(root, "node_modules", ".bin", "node");
  if (!existsSync(node24)) {
    process.stderr.write(
      `livepeer-operator needs Node.js 24 or later (this is ${process.version}); run 'npm install' in ${root} or install Node 24.\n`,
    );
    process.exit(1);
  }
  const r = spawnSync(node24, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: "inherit",
  });
  process.exit(r.status ?? 1);
}
const built = path.join(root, "dist", "cli", "main.js");
const entry = existsSync(built) ? built : path.join(root, "src", "cli", "main.ts");
const { main } = await import(pathToFileURL(entry).href);
process.exitCode = await main(process.argv.slice(2));
