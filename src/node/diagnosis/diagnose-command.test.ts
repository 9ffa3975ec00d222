// The real CLI as a child process: `node src/cli/main.ts diagnose ...`.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import { UsageError } from "../../cli/command.ts";
import { command } from "../../cli/commands/diagnose.ts";

const main = fileURLToPath(new URL("../../cli/main.ts", import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), "diagnose-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(
  args: string[],
  stdin?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [main, "diagnose", ...args], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin ?? "");
  });
}

function logFile(name: string, lines: string[]): string {
  const file = path.join(dir, name);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

const orchestratorLog = [
  "I1121 10:00:00.100000       1 starter.go:598] ***Livepeer is running on the offchain network***",
  "I1121 10:00:05.000000       1 lb.go:189] manifestID=a LB: Transcode loop timed out for key=a_0",
  "[libx264 @ 0x55d5c8a3c800] MB rate (2073600) > level limit (983040)",
  "I1121 10:00:06.000000       1 orchestrator.go:700] manifestID=b Transcoding of segment took=120ms",
  "[libx264 @ 0x55d5c8a3c800] MB rate (2073600) > level limit (983040)",
  'E1121 10:00:07.000000       1 starter.go:2064] Error starting Transcoder node: err="listen tcp 0.0.0.0:8935: bind: address already in use"',
];

// Each run loads the whole CLI (several seconds on a busy machine): generous timeouts.
describe("livepeer-operator diagnose", { timeout: 60_000 }, () => {
  it("explains a log grouped by finding, errors first, and exits 1 on an error", async () => {
    const { code, stdout, stderr } = await run([logFile("orch.log", orchestratorLog)]);
    expect(stderr).toBe("");
    expect(code).toBe(1);
    const blocks = stdout.trim().split("\n\n");
    expect(blocks).toHaveLength(4);
    expect(blocks[0]).toMatch(/^ERROR {4}PortInUse: 1 line \(line 6\)/);
    expect(blocks[0]).toContain("Meaning:   A port the node binds");
    expect(blocks[0]).toContain("Action:    Free the port");
    expect(blocks[0]).toContain("Sample:    E1121 10:00:07.000000");
    expect(blocks[1]).toMatch(/^WARNING {2}LevelLimitExceeded: 2 lines \(lines 3-5\)/);
    expect(blocks[2]).toMatch(/^NORMAL {3}TranscodeLoopTimedOut: 1 line/);
    expect(blocks[3]).toBe("Read 6 lines: 1 error, 1 warning, 1 normal condition.");
  });

  it("--json prints one object per finding per line", async () => {
    const { code, stdout } = await run(["--json", logFile("orch2.log", orchestratorLog)]);
    expect(code).toBe(1);
    const objects = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(objects.map((o) => [o.id, o.severity, o.count])).toEqual([
      ["PortInUse", "error", 1],
      ["LevelLimitExceeded", "warning", 2],
      ["TranscodeLoopTimedOut", "normal", 1],
    ]);
    for (const o of objects) {
      expect(typeof o.meaning).toBe("string");
      expect(typeof o.action).toBe("string");
      expect(orchestratorLog).toContain(o.line);
    }
    expect(objects[1]).toMatchObject({ firstLineNumber: 3, lastLineNumber: 5 });
  });

  it("reads standard input with '-' and exits 0 without errors", async () => {
    const { code, stdout } = await run(["-", "--json"], `${orchestratorLog.slice(0, 5).join("\n")}\n`);
    expect(code).toBe(0);
    expect(stdout.trim().split("\n")).toHaveLength(2);
  });

  it("a file that cannot be read exits 2 naming it", async () => {
    const { code, stderr, stdout } = await run(["/no/such/log"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toBe("livepeer-operator diagnose: cannot read /no/such/log: no such file\n");
  });
});

// The same command in-process, for the remaining cases (a child process costs seconds here).
describe("diagnose command (in-process)", () => {
  async function runInProcess(args: string[]): Promise<{ code: number; stdout: string }> {
    let stdout = "";
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      stdout += String(chunk);
      return true;
    });
    try {
      return { code: await command.run(args), stdout };
    } finally {
      spy.mockRestore();
    }
  }

  it("says so when nothing is known", async () => {
    const { code, stdout } = await runInProcess([logFile("clean.log", ["hello", "world"])]);
    expect(code).toBe(0);
    expect(stdout).toBe("Read 2 lines: no known condition found.\n");
  });

  it("prints nothing for --json on a clean log", async () => {
    const { code, stdout } = await runInProcess(["--json", logFile("clean2.log", ["hello"])]);
    expect(code).toBe(0);
    expect(stdout).toBe("");
  });

  it.each([
    [[dir], `cannot read ${dir}: it is a directory`],
    [["a.log", "b.log"], "give one log file (or '-'), not 2"],
    [["--jsn"], "Unknown option '--jsn'"],
  ])("usage error %j", async (args, message) => {
    const error = await command.run(args).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain(message);
    expect((error as UsageError).exitCode).toBe(2);
  });
});
