#!/usr/bin/env node
// The `livepeer-operator` command: dispatches to ./commands/<name>.{ts,js}, found by file name so
// that adding a subcommand never edits this file.
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { slimClientNode } from "../kube/client-node/slim-client-node.ts";
import { type Command, UsageError } from "./command.ts";

// Before any command (and so client-node) is imported.
slimClientNode();

const commandsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), "commands");

async function loadCommands(): Promise<Map<string, Command>> {
  const files = (await readdir(commandsDir)).filter(
    (f) => /\.(ts|js)$/.test(f) && !/\.(test|d)\.ts$/.test(f),
  );
  const commands = new Map<string, Command>();
  for (const file of files.sort()) {
    const mod = (await import(path.join(commandsDir, file))) as { command?: Command };
    if (mod.command) commands.set(mod.command.name, mod.command);
  }
  return commands;
}

function help(commands: Map<string, Command>): string {
  const width = Math.max(...[...commands.keys()].map((n) => n.length));
  const lines = [...commands.values()].map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `Usage: livepeer-operator <command> [options]\n\nCommands:\n${lines.join("\n")}\n\nRun 'livepeer-operator <command> --help' for a command's options.\n`;
}

/** Loads one command by its file name (commands/<name>.ts): every CLI call stays fast. */
async function loadCommand(name: string): Promise<Command | undefined> {
  if (!/^[a-z][a-z-]*$/.test(name)) return undefined;
  const ext = path.extname(fileURLToPath(import.meta.url));
  const file = path.join(commandsDir, `${name}${ext}`);
  if (!existsSync(file)) return undefined;
  const mod = (await import(file)) as { command?: Command };
  return mod.command?.name === name ? mod.command : undefined;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "help" || name === "--help" || name === "-h") {
    process.stdout.write(help(await loadCommands()));
    return name ? 0 : 2;
  }
  const command = await loadCommand(name);
  if (!command) {
    process.stderr.write(`livepeer-operator: unknown command '${name}'.\n\n${help(await loadCommands())}`);
    return 2;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    process.stdout.write(`${command.usage.trim()}\n`);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`livepeer-operator ${name}: ${err.message}\n`);
      return err.exitCode;
    }
    throw err;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(
        `livepeer-operator: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.exitCode = 1;
    },
  );
}
