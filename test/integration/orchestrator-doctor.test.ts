// The Orchestrator's status tells the truth about its node: the real control plane, kwok pods on
// loopback IPs, and a node simulator bound on each pod's own IP (as `npm start` runs them), with
// the controller's node doctor reading the pods' endpoints and, through the Kubernetes API, their
// logs (and that log source, KubePodLogs, on its own). Failures and log lines are injected
// through the simulator's /__sim/actions.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubePodLogs, type PodLogChunk } from "../../src/controller/doctor/index.ts";
import { parseTimedLine } from "../../src/controller/doctor/log-cursor.ts";
import { orchestratorController } from "../../src/controller/orchestrator/controller.ts";
import type { OrchestratorReconciler } from "../../src/controller/orchestrator/reconcile.ts";
import type { Manager } from "../../src/controller/runtime/index.ts";
import { createNodePool, type NodePool } from "../../src/dev/cluster/fleet.ts";
import { defaultFleet } from "../../src/dev/cluster/nodes.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { type SimulatorFleet, startSimulatorFleet } from "../../src/dev/simulators.ts";
import { Events, type KubeObject, keyFor, Pods } from "../../src/kube/index.ts";
import type { StoredOrchestrator } from "../../src/schema/orchestrator.ts";
import { kubeClient, kubeConfig, kubectl, testNamespace } from "./support/cluster.ts";
import { installCrds } from "./support/crds.ts";
import { startTestManager } from "./support/manager.ts";
import { condition, isServing, orchestratorKit } from "./support/orchestrators.ts";

const PERIOD_MS = 2_000;
const { kc, client } = kubeClient();
let ns: Awaited<ReturnType<typeof testNamespace>>;
let manager: Manager;
let reconciler: OrchestratorReconciler | undefined;
let pool: NodePool;
let sims: SimulatorFleet;
const simDir = mkdtempSync(path.join(tmpdir(), "doctor-sims-"));
const simLog: string[] = [];
const controllerLog: string[] = [];

beforeAll(async () => {
  ns = await testNamespace("doctor");
  await installCrds(kubectl);
  pool = await createNodePool(kubeConfig(), `${ns.name}-cpu`, [
    defaultFleet.find((n) => n.name === "cpu-only")!,
  ]);
  sims = startSimulatorFleet(kubeConfig(), simDir, (l) => simLog.push(l), { namespace: ns.name });
  const def = orchestratorController({
    defaultImage: "livepeer/go-livepeer:test",
    doctor: { periodMs: PERIOD_MS, retryMs: 1_000, tickMs: 200, endpointTimeoutMs: 1_000 },
  });
  const setup = def.setup;
  manager = await startTestManager(
    "doctor-test",
    ns.name,
    [{ ...def, setup: (ctx) => (reconciler = setup(ctx) as OrchestratorReconciler) }],
    controllerLog,
  );
});
afterAll(async () => {
  await manager?.stop("tests done");
  await sims?.stop();
  await pool?.delete();
  await ns?.remove();
  await kc.close();
  rmSync(simDir, { recursive: true, force: true });
});

const kit = orchestratorKit(
  client,
  () => ns.name,
  () =>
    `${simLog.slice(-5).join("\n")}\n${controllerLog
      .filter((l) => l.includes("doctor"))
      .slice(-5)
      .join("\n")}`,
);
const { read, until } = kit;
const apply = (name: string, spec: Record<string, unknown> = {}) => kit.apply(name, spec, pool);
const finding = (o: StoredOrchestrator | undefined, id: string) =>
  o?.status?.findings?.find((f) => f.id === id);

/** Tells the simulator behind pod NAME-0 what to do (it listens on the pod's own loopback IP). */
async function sim(name: string, action: unknown): Promise<void> {
  const pod = await client.get<KubeObject & { status?: { podIP?: string } }>(Pods, ns.name, `${name}-0`);
  const ip = pod.status?.podIP ?? "";
  if (!ip.startsWith("127.")) throw new Error(`pod ${name}-0 has IP ${ip}: tests only dial loopback`);
  const res = await fetch(`http://${ip}:7935/__sim/actions`, {
    method: "POST",
    body: JSON.stringify(action),
    signal: AbortSignal.timeout(5_000),
  });
  if (!res.ok) throw new Error(`/__sim/actions: ${res.status} ${await res.text()}`);
}

async function eventsAbout(name: string): Promise<{ reason: string; note: string; type: string }[]> {
  const list = await client.list<
    KubeObject & { reason: string; note: string; type: string; regarding?: { name?: string } }
  >(Events, { namespace: ns.name });
  return list.items.filter((e) => e.regarding?.name === name);
}

describe("Orchestrator status and the node doctor", () => {
  it("a simulated node that answers: Ready, NodeReachable=True, Simulated=True", async () => {
    await apply("serving");
    const o = await until("serving", isServing);
    expect(condition(o, "NodeReachable")).toMatchObject({ status: "True", reason: "EndpointsAnswering" });
    expect(condition(o, "NodeReachable")?.message).toBe(
      "answering: serving-0 (/status, /metrics, /net.Orchestrator/GetOrchestrator)",
    );
    expect(condition(o, "Simulated")).toMatchObject({ status: "True", reason: "NodeSimulator" });
    expect(condition(o, "Simulated")?.message).toMatch(/its answers say Simulated: true/);
    expect(condition(o, "Ready")).toMatchObject({ reason: "Serving" });
  });

  it("/status failing: NodeReachable=False and Ready=False naming the endpoint; recovers when cleared", async () => {
    await until("serving", isServing);
    await sim("serving", { fail: { path: "/status", status: 500, body: "simulated failure" } });
    try {
      const down = await until("serving", (o) => condition(o, "NodeReachable")?.status === "False");
      expect(condition(down, "NodeReachable")).toMatchObject({ reason: "EndpointError" });
      expect(condition(down, "NodeReachable")?.message).toMatch(
        /^pod serving-0: GET \/status of http:\/\/127\.\d+\.\d+\.\d+:7935 failed: HTTP 500: simulated failure\. Next: /,
      );
      expect(condition(down, "Ready")).toMatchObject({ status: "False", reason: "NodeUnreachable" });
      // Pods stay Ready throughout (kwok): only the endpoints say the node is not serving.
      // The Event is posted beside the status write, not before it: wait for it.
      await waitFor(
        "a Warning Event NodeUnreachable",
        async () =>
          (await eventsAbout("serving")).some((e) => e.reason === "NodeUnreachable" && e.type === "Warning"),
        15_000,
      );
    } finally {
      // Cleared even when a check above fails: the tests after this one read the same node.
      await sim("serving", { clear: "/status" });
    }
    const back = await until("serving", isServing);
    expect(condition(back, "NodeReachable")).toMatchObject({ status: "True" });
  });

  it("a warning in the log and sessions at the limit are findings with Events; Ready stays True", async () => {
    await apply("warned");
    await until("warned", isServing);
    await sim("warned", [
      { log: "manifestID=4d2b Error receiving ticket sessionID=4d2b senderNonce=3: TicketParams expired" },
      { sessions: "limit" },
    ]);
    const o = await until(
      "warned",
      (x) => !!finding(x, "TicketParamsExpired") && !!finding(x, "OrchestratorCapped"),
    );
    expect(finding(o, "TicketParamsExpired")).toMatchObject({ severity: "warning" });
    expect(finding(o, "TicketParamsExpired")?.message).toMatch(
      /^pod warned-0 logged ".*TicketParams expired"/,
    );
    expect(finding(o, "OrchestratorCapped")?.message).toMatch(/^5 of 5 sessions in use/);
    expect(condition(o, "Ready")).toMatchObject({ status: "True", reason: "Serving" });
    expect(condition(o, "Ready")?.message).toMatch(/2 warning finding\(s\)/);
    await waitFor(
      "an Event per new warning finding",
      async () => {
        const reasons = (await eventsAbout("warned")).map((e) => e.reason);
        return reasons.includes("TicketParamsExpired") && reasons.includes("OrchestratorCapped");
      },
      15_000,
    );
    // A condition read from the endpoints clears when the reading does.
    await sim("warned", { sessions: 0 });
    const cleared = await until("warned", (x) => !finding(x, "OrchestratorCapped"));
    expect(finding(cleared, "TicketParamsExpired")).toBeDefined();
  });

  it("an error in the log is a finding with one Event (not one per line) and Ready=False", async () => {
    await apply("failing");
    await until("failing", isServing);
    const line = 'Error calling reward err="insufficient funds for gas * price + value"';
    await sim("failing", { log: line });
    const o = await until("failing", (x) => !!finding(x, "InsufficientGasFunds"));
    const f = finding(o, "InsufficientGasFunds")!;
    expect(f.severity).toBe("error");
    expect(f.message).toContain("insufficient funds for gas * price + value");
    expect(f.message).toMatch(/Add ETH to the node's account/);
    expect(Date.parse(f.since)).toBeLessThanOrEqual(Date.now());
    const notReady = await until("failing", (x) => condition(x, "Ready")?.status === "False");
    expect(condition(notReady, "Ready")).toMatchObject({ reason: "InsufficientGasFunds" });
    expect(condition(notReady, "NodeReachable")).toMatchObject({ status: "True" });
    // The same line again, twice: the finding keeps its `since`, and no second Event is made.
    await sim("failing", { log: [line, line] });
    // A sentinel line after them, one of another finding: once it is a finding with its Event,
    // the doctor has read (and acted on) the two lines before it.
    await sim("failing", { log: "Ticket params expired (sentinel)" });
    await until("failing", (x) => !!finding(x, "TicketParamsExpired"));
    await waitFor(
      "the sentinel's Event",
      async () => (await eventsAbout("failing")).some((e) => e.reason === "TicketParamsExpired"),
      15_000,
    );
    const later = await read("failing");
    expect(finding(later, "InsufficientGasFunds")?.since).toBe(f.since);
    const events = (await eventsAbout("failing")).filter((e) => e.reason === "InsufficientGasFunds");
    expect(events).toHaveLength(1);
    expect(events[0]!.type).toBe("Warning");
  });

  it("keystore Secret: missing, then missing a key, then a password with a newline (a finding), then fixed", async () => {
    const secretValue = "keystore-pw-do-not-leak";
    const onChain = {
      network: "arbitrum-one-mainnet",
      ethUrl: "https://arb1.example.invalid",
      ethAcctAddr: "0x1111111111111111111111111111111111111111",
      pricePerUnit: "1000",
      keystoreSecret: "keys",
    };
    await apply("onchain", onChain);
    const missing = await until("onchain", (x) => condition(x, "Ready")?.reason === "KeystoreSecretNotFound");
    expect(condition(missing, "Ready")?.message).toContain(
      `Secret ${ns.name}/keys (spec.keystoreSecret) does not exist`,
    );

    const secret = (data: Record<string, string>) =>
      kubectl(
        ["apply", "-f", "-"],
        JSON.stringify({
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: "keys", namespace: ns.name },
          stringData: data,
        }),
      );
    await kubectl(["create", "secret", "generic", "keys", "-n", ns.name, "--from-literal=key.json={}"]);
    const noKey = await until("onchain", (x) => condition(x, "Ready")?.reason === "KeystoreSecretKeyMissing");
    expect(condition(noKey, "Ready")?.message).toContain('has no key "password" (it has: key.json)');

    await secret({ "key.json": "{}", password: `${secretValue}\n` });
    const newline = await until("onchain", (x) => !!finding(x, "KeystorePasswordTrailingNewline"));
    const f = finding(newline, "KeystorePasswordTrailingNewline")!;
    expect(f.severity).toBe("error");
    expect(f.message).toContain(`Secret ${ns.name}/keys key "password" ends with a newline`);
    expect(f.message).toContain("printf '%s'");
    expect(condition(newline, "Ready")).toMatchObject({
      status: "False",
      reason: "KeystorePasswordTrailingNewline",
    });

    await secret({ "key.json": "{}", password: secretValue });
    const fixed = await until("onchain", (x) => !finding(x, "KeystorePasswordTrailingNewline"));
    expect(condition(fixed, "Ready")?.reason).not.toMatch(
      /^Keystore(SecretNotFound|SecretKeyMissing|PasswordEmpty|PasswordTrailingNewline)$/,
    );
    // The controller survived all of it and never wrote the password anywhere.
    expect(JSON.stringify(fixed.status)).not.toContain(secretValue);
    expect(JSON.stringify(await eventsAbout("onchain"))).not.toContain(secretValue);
    await apply("after-keystore");
    await until("after-keystore", isServing);
  });

  it("the doctor's log source reads a node pod's log through the API: the last lines, then from a second on", async () => {
    await until("serving", isServing);
    const logs = new KubePodLogs(client);
    const pod = {
      namespace: ns.name,
      pod: "serving-0",
      container: "livepeer",
      limitBytes: 256 * 1024,
      timeoutMs: 10_000,
    };
    const tail = await logs.read({ ...pod, from: { tailLines: 3 } });
    expect(tail?.truncated).toBe(false);
    expect(tail?.lines.length).toBeGreaterThan(0);
    expect(tail?.lines.length).toBeLessThanOrEqual(3);
    for (const line of tail?.lines ?? []) expect(parseTimedLine(line), line).toBeDefined();

    const since = new Date(Math.floor(Date.now() / 1000) * 1000);
    const marker = `log source check ${randomUUID()}`;
    await sim("serving", { log: marker });
    let read: PodLogChunk | undefined;
    await waitFor(
      "the simulator's line through the Kubernetes API",
      async () => {
        read = await logs.read({ ...pod, from: { since } });
        return read?.lines.some((l) => l.endsWith(marker)) ?? false;
      },
      15_000,
      () => JSON.stringify(read),
    );
    for (const line of read?.lines ?? []) {
      expect(parseTimedLine(line)?.at.getTime(), line).toBeGreaterThanOrEqual(since.getTime());
    }
    // A read the byte limit cuts says so; a pod that does not exist has no log (not an error).
    expect((await logs.read({ ...pod, from: { tailLines: 100 }, limitBytes: 64 }))?.truncated).toBe(true);
    expect(await logs.read({ ...pod, pod: "no-such-pod-0", from: { tailLines: 1 } })).toBeUndefined();
  });

  it("deleting the Orchestrators stops every read of their nodes: no request left running or scheduled", async () => {
    const doctor = reconciler!.doctor;
    await until("serving", isServing);
    expect(doctor.tracking(keyFor(ns.name, "serving"))).toBe(true);
    expect(doctor.stats().pods).toBeGreaterThan(0);
    const before = doctor.stats();
    await waitFor(
      "the doctor to have looked again",
      async () => doctor.stats().logReads > before.logReads,
      10_000,
    );

    await kubectl(["delete", "orchestrators", "--all", "-n", ns.name, "--wait=true"]);
    await waitFor(
      "the doctor to forget every Orchestrator",
      async () => {
        const s = doctor.stats();
        return s.resources === 0 && s.pods === 0 && s.inFlight === 0;
      },
      20_000,
      () => JSON.stringify(doctor.stats()),
    );
    expect(doctor.tracking(keyFor(ns.name, "serving"))).toBe(false);
    // A sentinel Orchestrator made after the forget, its node looked at twice (a period apart):
    // a look still scheduled for a forgotten one was due a period after its last, before the
    // forget, so it would have come before the sentinel's second.
    const forgottenAt = Date.now();
    const sentinel = keyFor(ns.name, "sentinel");
    await apply("sentinel");
    const looksSince = () => doctor.recentLooks().filter((l) => l.at >= forgottenAt);
    await waitFor(
      "two looks at the sentinel's node",
      async () => looksSince().filter((l) => l.key === sentinel).length >= 2,
      60_000,
      () => JSON.stringify(doctor.recentLooks().slice(-5)),
    );
    expect(looksSince().filter((l) => l.key !== sentinel)).toEqual([]);
    await kubectl(["delete", "orchestrators", "--all", "-n", ns.name, "--wait=true"]);
  });
});
