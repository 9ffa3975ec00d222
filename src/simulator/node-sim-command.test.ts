// `livepeer-operator node-sim` as a child process, as the embedded default and users run it.
import type { ChildProcess } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import { UsageError } from "../cli/command.ts";
import { command } from "../cli/commands/node-sim.ts";
import { LogClassifier } from "../node/diagnosis/classifier.ts";
import { type AnnouncingChild, spawnAnnouncing } from "../process/announcing-child.ts";

const main = fileURLToPath(new URL("../cli/main.ts", import.meta.url));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});

function launch(args: string[], env: Record<string, string> = {}): AnnouncingChild {
  const run = spawnAnnouncing([process.execPath, main, "node-sim", ...args], {
    PATH: process.env.PATH ?? "",
    ...env,
  });
  children.push(run.child);
  return run;
}

const ready = (run: AnnouncingChild) => run.ready(50_000);

const ORCH = [
  "-orchestrator",
  "-transcoder",
  "-monitor",
  "-cliAddr=0.0.0.0:0",
  "-httpAddr=0.0.0.0:0",
  "-serviceAddr=orch-0.orch.default.svc.cluster.local:8935",
  "-maxSessions=6",
  "-pricePerUnit=1000",
];

// Each run loads the whole CLI (several seconds on a busy machine): generous timeouts.
describe("livepeer-operator node-sim", { timeout: 60_000 }, () => {
  it("serves the flags' values until SIGTERM, then shuts down gracefully with exit 0", async () => {
    const scenario = JSON.stringify({
      steps: [
        {
          log: 'E1121 10:00:01.000000       1 segment_rpc.go:576] Error submitting segment statusCode=403 err="OrchestratorCapped"',
        },
      ],
    });
    const run = launch(["--host", "127.1.0.7", ...ORCH], {
      LIVEPEER_SIM_SCENARIO: scenario,
      LP_MAXSESSIONS: "9",
    });
    const urls = await ready(run);
    expect(urls.role).toBe("orchestrator");
    expect(new URL(urls.cli!).hostname).toBe("127.1.0.7");
    const status = (await (await fetch(`${urls.cli}/status`)).json()) as Record<string, unknown>;
    // The command line beats LP_MAXSESSIONS, as in the node.
    expect(status).toMatchObject({ SessionLimit: 6, PricePerUnit: 1000, Simulated: true });
    run.child.kill("SIGTERM");
    expect(await run.exit).toBe(0);
    expect(run.stderr()).toContain("Exiting Livepeer: terminated");
    expect(run.stderr()).toContain("Graceful shutdown complete");
    const classifier = new LogClassifier();
    for (const line of run.stderr().split("\n")) classifier.push(line);
    expect(classifier.findings().map((f) => f.id)).toEqual(["OrchestratorCapped"]);
  });

  it("invalid flags: the node's F lines on stderr, exit 1, nothing on stdout", async () => {
    const run = launch(["-orchestrator", "-transcoder", "-maxSessions=auto", "-cliAddr=:0", "-httpAddr=:0"]);
    expect(await run.exit).toBe(1);
    expect(run.stdout()).toBe("");
    expect(run.stderr()).toMatch(
      /^F\d{4} .*-maxSessions auto works only for an orchestrator without -transcoder/m,
    );
  });

  it("a gateway with a shorter webhook refresh from the environment re-reads its orchestrator list", async () => {
    let list = [{ address: "https://10.0.0.1:8935" }];
    const hook = createServer((_req, res) => res.end(JSON.stringify(list)));
    await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
    try {
      const run = launch(
        [
          "-gateway",
          "-cliAddr=127.0.0.1:0",
          "-httpAddr=127.0.0.1:0",
          "-rtmpAddr=127.0.0.1:0",
          `-orchWebhookUrl=http://127.0.0.1:${(hook.address() as AddressInfo).port}/`,
        ],
        { LIVEPEER_SIM_ORCH_WEBHOOK_REFRESH: "100ms" },
      );
      const urls = await ready(run);
      expect(urls.rtmp).toMatch(/^rtmp:\/\/127\.0\.0\.1:\d+$/);
      const pool = async () =>
        ((await (await fetch(`${urls.cli}/status`)).json()) as { OrchestratorPool: string[] })
          .OrchestratorPool;
      expect(await pool()).toEqual(["https://10.0.0.1:8935"]);
      list = [{ address: "https://10.0.0.2:8935" }];
      // A read of /status after the (100 ms) refresh interval asks the hook again.
      await expect.poll(pool, { timeout: 20_000, interval: 50 }).toEqual(["https://10.0.0.2:8935"]);
      run.child.kill("SIGTERM");
      expect(await run.exit).toBe(0);
    } finally {
      hook.close();
    }
  });

  it("an unknown flag exits 2", async () => {
    const run = launch(["-gateway", "-maxsessions=2"]);
    expect(await run.exit).toBe(2);
    expect(run.stderr()).toContain("flag provided but not defined: -maxsessions");
  });
});

// The same command in-process, for the cases that never start a node (a child costs seconds here).
describe("node-sim command (in-process)", () => {
  it("-help prints the node's usage and exits 0", async () => {
    let stdout = "";
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      stdout += String(chunk);
      return true;
    });
    try {
      expect(await command.run(["-help"])).toBe(0);
    } finally {
      spy.mockRestore();
    }
    expect(stdout).toMatch(/^Usage of livepeer:\n/);
  });

  it("--pod-network takes no value: the node flag after it still reaches the node", async () => {
    let stdout = "";
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      stdout += String(chunk);
      return true;
    });
    try {
      expect(await command.run(["--pod-network", "-version"])).toBe(0);
    } finally {
      spy.mockRestore();
    }
    expect(stdout).toMatch(/^Livepeer Node Version: /m);
  });

  it.each([
    [["--host", "10.1.2.3", "-gateway"], "not a loopback address"],
    [["--pod-network", "--host", "127.0.0.1", "-gateway"], "--host and --pod-network contradict"],
    [
      ["--sim-scenario", "/no/such/scenario.yaml", "-gateway"],
      "scenario file /no/such/scenario.yaml does not exist",
    ],
    [["--sim-scenario=steps: [{sessions: -1}]", "-gateway"], "steps.0"],
    [["--sim-gpus", "two", "-gateway"], "--sim-gpus two"],
    [["--sim-colour", "red", "-gateway"], "Unknown option '--sim-colour'"],
    [
      ["--sim-stream-timeout", "soon", "-gateway"],
      "--sim-stream-timeout soon: give a duration > 0 such as 500ms",
    ],
    [["--sim-orch-webhook-refresh=0s", "-gateway"], "LIVEPEER_SIM_ORCH_WEBHOOK_REFRESH"],
  ])("simulator option error %j", async (args, message) => {
    const error = await command.run(args).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain(message);
  });
});
