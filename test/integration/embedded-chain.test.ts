// The embedded default with its chain, as a user runs it: `livepeer-operator dev` (what `npm
// start` runs) in a directory of its own, its own local control plane, the devnet in `.dev/`.
// READY and .dev/state.json carry ethUrl and deployments; the chain moves; the deployment
// ConfigMap is in the cluster; the devnet examples applied as they are show Registered=True and
// Funded=True; Ctrl-C (SIGINT) leaves no chain process, port or devnet directory behind.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runKubectl } from "../../src/dev/cluster/control-plane.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import type { DevState } from "../../src/dev/ready.ts";
import { isAlive, isPortListening } from "../../src/devnet/processes.ts";
import type { DevnetState } from "../../src/devnet/state.ts";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
let dir: string;
let child: ChildProcess;
let ready: Omit<DevState, "token">;
let stderr = "";

const k = (args: string[], input?: string) => runKubectl(inject("kubectl"), ready.kubeconfig, args, input);

async function rpc(url: string, method: string): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", method, params: [], id: 1 }),
  });
  return ((await res.json()) as { result: unknown }).result;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "embedded-chain-it-"));
  child = spawn(
    process.execPath,
    [path.join(repo, "src/cli/main.ts"), "dev", "--dir", dir, "--block-interval", "0.5"],
    { cwd: repo, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, KUBECONFIG: "" } },
  );
  child.stderr!.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  ready = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n").find((l) => l.startsWith("READY "));
      if (line) resolve(JSON.parse(line.slice(6)) as Omit<DevState, "token">);
    });
    child.once("exit", (code) =>
      reject(new Error(`dev exited with ${code} before READY:\n${stderr.slice(-4000)}`)),
    );
  });
}, 300_000);

afterAll(async () => {
  // Killed outright if a test failed before Ctrl-C: its watchdog cleans up.
  if (child.exitCode === null) child.kill("SIGKILL");
  await waitFor(
    "the watchdog to clean up",
    async () => !existsSync(path.join(dir, ".dev", ".devnet")),
    30_000,
  ).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe("npm start brings up the devnet with the rest", () => {
  it("READY and .dev/state.json name the chain and the deployment; the chain answers and moves", async () => {
    const deployments = path.join(dir, ".dev", "deployments", "devnet");
    expect(ready).toMatchObject({
      ethUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      deployments,
    });
    expect(ready).not.toHaveProperty("token");
    const stateFile = path.join(dir, ".dev", "state.json");
    const state = JSON.parse(readFileSync(stateFile, "utf8")) as DevState;
    expect(state).toMatchObject({ ethUrl: ready.ethUrl, deployments, token: expect.any(String) });
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);
    const controller = JSON.parse(readFileSync(path.join(deployments, "Controller.json"), "utf8")) as {
      address: string;
    };
    expect(controller.address).toMatch(/^0x[0-9a-fA-F]{40}$/);

    const first = BigInt((await rpc(ready.ethUrl!, "eth_blockNumber")) as string);
    await waitFor(
      "the round ticker to mine a block",
      async () => BigInt((await rpc(ready.ethUrl!, "eth_blockNumber")) as string) > first,
      10_000,
    );

    const cm = JSON.parse(
      await k(["get", "configmap", "livepeer-devnet", "-n", "default", "-o", "json"]),
    ) as {
      data: Record<string, string>;
      metadata: { labels: Record<string, string> };
    };
    expect(cm.data.ethUrl).toBe(ready.ethUrl);
    expect(JSON.parse(cm.data["Controller.json"]!).address).toBe(controller.address);
    expect(cm.metadata.labels).toMatchObject({ "app.kubernetes.io/component": "devnet-deployment" });
  });

  it("the devnet examples, applied as they are, are Registered and Funded", async () => {
    await k(
      ["apply", "-f", "examples/orchestrator-devnet.yaml", "-f", "examples/gateway-devnet.yaml"].map((a) =>
        a.startsWith("examples/") ? path.join(repo, a) : a,
      ),
    );
    const conditionOf = async (resource: string, type: string) =>
      k([
        "get",
        resource,
        "-n",
        "default",
        "-o",
        `jsonpath={.status.conditions[?(@.type=="${type}")].status}`,
      ]);
    await waitFor(
      "orchestrator/devnet-0 Registered=True and gateway/devnet-gw Funded=True",
      async () =>
        (await conditionOf("orchestrator/devnet-0", "Registered")) === "True" &&
        (await conditionOf("gateway/devnet-gw", "Funded")) === "True",
      90_000,
      () => stderr.slice(-3000),
    );
    expect(await conditionOf("orchestrator/devnet-0", "ChainHealthy")).toBe("True");
    expect(await conditionOf("gateway/devnet-gw", "ChainHealthy")).toBe("True");
    expect(
      await k([
        "get",
        "gateway/devnet-gw",
        "-n",
        "default",
        "-o",
        "jsonpath={.status.deposit}/{.status.reserve}",
      ]),
    ).toBe("10/10");
  });

  it("Ctrl-C stops the chain and the ticker with the rest and removes the devnet's files", async () => {
    const devnet = JSON.parse(
      readFileSync(path.join(dir, ".dev", ".devnet", "state.json"), "utf8"),
    ) as DevnetState;
    const pids = [devnet.pid, devnet.ticker!.pid];
    expect(pids.every(isAlive)).toBe(true);
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(pids.filter(isAlive)).toEqual([]);
    expect(await isPortListening(devnet.port)).toBe(false);
    expect(existsSync(path.join(dir, ".dev", ".devnet"))).toBe(false);
    expect(existsSync(path.join(dir, ".dev", "deployments"))).toBe(false);
    expect(existsSync(path.join(dir, ".dev", "state.json"))).toBe(false);
  });
});
