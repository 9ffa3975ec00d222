import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { inRootCommand, runCommand, shellWord } from "./in-root.ts";

describe("a command in the Python root", () => {
  it("shell words: bare when safe, single-quoted otherwise", () => {
    expect(shellWord("/opt/venv/bin/python")).toBe("/opt/venv/bin/python");
    expect(shellWord("a b")).toBe("'a b'");
    expect(shellWord("it's")).toBe("'it'\\''s'");
    expect(shellWord("$HOME")).toBe("'$HOME'");
    // What the shell reads back is the word itself.
    const echoed = spawnSync("sh", ["-c", `printf %s ${shellWord('it\'s $x `y` \\ "z"')}`], {
      encoding: "utf8",
    });
    expect(echoed.stdout).toBe('it\'s $x `y` \\ "z"');
  });

  it("passes binds, env and program in order; the shown command names host values by reference only", () => {
    const c = inRootCommand(
      "/cache/root",
      [{ source: "/etc/hosts", target: "/etc/hosts" }],
      [
        { name: "PATH", value: "/usr/bin" },
        { name: "https_proxy", value: "http://user:secret@proxy:3128", fromHost: true },
      ],
      ["/opt/venv/bin/python", "-c", "print(1)"],
    );
    expect(c.argv.slice(0, 5)).toEqual(["unshare", "--mount", "--propagation", "private", "--"]);
    const afterRoot = c.argv.slice(c.argv.indexOf("/cache/root"));
    expect(afterRoot).toEqual([
      "/cache/root",
      "/etc/hosts",
      "/etc/hosts",
      "--",
      "PATH=/usr/bin",
      "https_proxy=http://user:secret@proxy:3128",
      "/opt/venv/bin/python",
      "-c",
      "print(1)",
    ]);
    expect(c.shown).not.toContain("secret");
    expect(c.shown).toContain('https_proxy="$https_proxy"');
    expect(c.shown).toMatch(/ \/opt\/venv\/bin\/python -c 'print\(1\)'$/);
  });

  it("a run past its timeout is killed with its process group and says so", async () => {
    const t0 = Date.now();
    const r = await runCommand(["sh", "-c", "sleep 30 & sleep 30"], { timeoutMs: 300 });
    expect(r.timedOut).toBe(true);
    expect(r.code).not.toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it("returns the exit code, stdout and stderr; standard input is given", async () => {
    const r = await runCommand(["sh", "-c", "cat; echo err >&2; exit 3"], { timeoutMs: 10_000, input: "in" });
    expect(r).toEqual({ code: 3, stdout: "in", stderr: "err\n", timedOut: false });
  });
});
