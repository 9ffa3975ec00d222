// The official Python gateway SDK (livepeer-gateway 1.0.0) as a client of the operator, on the
// real control plane: the project installs Python >= 3.12 and the SDK on first use (cached), and
// the SDK's own discover_orchestrators, pointed at a Gateway's discovery hook (the URL the
// Gateway's node gets as -orchWebhookUrl), lists exactly the orchestrators the Gateway's status
// names, as they change; and the SDK's get_orch_info (gRPC over TLS, trusting the orchestrator's
// self-signed certificate on first use) returns from each what its Orchestrator's status says,
// which the controller read the same way.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../../src/dev/cluster/process.ts";
import {
  CHECK_SCRIPT,
  ensureGatewaySdk,
  GATEWAY_DRIVER,
  type GatewaySdk,
} from "../../src/dev/python/environment.ts";
import { type KubeObject, Secrets } from "../../src/kube/index.ts";
import type { StoredGateway } from "../../src/schema/gateway.ts";
import { Gateways } from "../../src/schema/resources.ts";
import { kubeClient, kubectl } from "./support/cluster.ts";
import { type NodeBed, startNodeBed } from "./support/node-bed.ts";
import { isServing, orchestratorKit } from "./support/orchestrators.ts";

const { kc, client } = kubeClient();

let bed: NodeBed | undefined;
let sdk: GatewaySdk;
const installLog: string[] = [];

beforeAll(async () => {
  // The install (about a minute when cold, cached after) runs while the bed starts.
  const [b, s] = await Promise.allSettled([
    startNodeBed({ name: "python-sdk", nodes: ["cpu-only"] }),
    ensureGatewaySdk((l) => installLog.push(l)),
  ]);
  if (b.status === "fulfilled") bed = b.value;
  if (s.status === "rejected") throw s.reason;
  if (b.status === "rejected") throw b.reason;
  sdk = s.value;
});
afterAll(async () => {
  await bed?.stop();
  await kc.close();
});

const ns = () => bed!.ns.name;
const context = () => `${bed?.context(/gateway|warn|error/i) ?? ""}\n${installLog.slice(-5).join("\n")}`;
const orchestrators = orchestratorKit(client, ns, context);

/** Mount points under the SDK's cache folder, in this (the host's) mount namespace. */
function mountsUnder(dir: string): string[] {
  return readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((l) => l.split(" ")[4] ?? "")
    .filter((p) => p.startsWith(`${dir}/`) || p === dir);
}

/** The driver's JSON answer and exit code. */
async function driver(args: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
  const r = await sdk.run(GATEWAY_DRIVER, args, { timeoutMs: 60_000 });
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(r.stdout) as Record<string, unknown>;
  } catch {
    throw new Error(`the driver printed no JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
  return { code: r.code, json };
}

async function applyGateway(name: string, selector: Record<string, string>): Promise<void> {
  const body = {
    apiVersion: "livepeer.org/v1alpha1",
    kind: "Gateway",
    metadata: { name, namespace: ns() },
    spec: {
      podTemplate: bed!.fence(),
      orchestrators: { selector: { matchLabels: selector } },
      maxPricePerUnit: "300",
      pixelsPerUnit: 1,
    },
  };
  await kubectl(["apply", "--server-side", "--field-manager=test", "-f", "-"], JSON.stringify(body));
}

async function orchWebhookUrl(gateway: string): Promise<string> {
  let data: Record<string, string> | undefined;
  await waitFor(
    `the ${gateway}-node-hooks Secret`,
    async () => {
      data = (
        await client
          .get<KubeObject & { data?: Record<string, string> }>(Secrets, ns(), `${gateway}-node-hooks`)
          .catch(() => undefined)
      )?.data;
      return !!data?.orchWebhookUrl;
    },
    30_000,
    context,
  );
  return Buffer.from(data!.orchWebhookUrl!, "base64").toString("utf8");
}

/** The addresses the Gateway's status names, as the SDK dials them (https://host:port). */
async function statusAddresses(gateway: string): Promise<string[]> {
  const g = await client.get<StoredGateway>(Gateways, ns(), gateway);
  return (g.status?.orchestrators ?? [])
    .map((o) => (o.address.includes("://") ? o.address : `https://${o.address}`))
    .sort();
}

/** Waits until the SDK's discovery equals the Gateway's status with `count` orchestrators. */
async function untilSdkMatchesStatus(gateway: string, url: string, count: number) {
  let fromSdk: unknown;
  let fromStatus: string[] = [];
  await waitFor(
    `the SDK's discovery of ${gateway} to equal its status with ${count} orchestrators`,
    async () => {
      fromStatus = await statusAddresses(gateway);
      const { code, json } = await driver(["discover", "--discovery-url", url]);
      fromSdk = code === 0 ? [...(json.orchestrators as string[])].sort() : json;
      return fromStatus.length === count && JSON.stringify(fromSdk) === JSON.stringify(fromStatus);
    },
    60_000,
    () => `SDK: ${JSON.stringify(fromSdk)}\nstatus: ${JSON.stringify(fromStatus)}\n${context()}`,
  );
  return { fromSdk: fromSdk as string[], fromStatus };
}

describe("the official Python gateway SDK as a client of the operator", () => {
  it("is installed: Python >= 3.12, livepeer-gateway 1.0.0, and its native packages (grpcio, av, protobuf) work", async () => {
    const r = await sdk.run(CHECK_SCRIPT, [], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const facts = JSON.parse(r.stdout) as {
      python: string;
      packages: Record<string, string>;
      encodedBytes: number;
      protobufBackend: string;
    };
    const [major, minor] = facts.python.split(".").map(Number);
    expect(major! * 100 + minor!).toBeGreaterThanOrEqual(312);
    expect(facts.packages["livepeer-gateway"]).toBe("1.0.0");
    expect(Object.keys(facts.packages).sort()).toEqual([
      "aiohttp",
      "av",
      "grpcio",
      "livepeer-gateway",
      "protobuf",
    ]);
    expect(facts.encodedBytes).toBeGreaterThan(0);
    expect(facts.protobufBackend).toBe("upb");
    expect(sdk.dir).toMatch(/\/python\/sdk-[0-9a-f]{16}$/);
    // Each run's /proc, /dev and script mounts lived in its own mount namespace: none is left.
    expect(mountsUnder(sdk.dir)).toEqual([]);
  });

  it("discover_orchestrators through a Gateway's discovery hook lists exactly the orchestrators its status names", async () => {
    for (const name of ["py-a", "py-b", "py-other"]) {
      await orchestrators.apply(name, { pricePerUnit: "100", pixelsPerUnit: 1 }, bed!.pool);
    }
    await kubectl(["label", "orchestrator", "py-a", "py-b", "-n", ns(), "pool=python", "--overwrite"]);
    await applyGateway("gw-py", { pool: "python" });
    for (const name of ["py-a", "py-b", "py-other"]) await orchestrators.until(name, isServing);
    const url = await orchWebhookUrl("gw-py");
    // Not printed on failure: the URL carries the Gateway's hook token.
    const hook = new URL(url);
    expect(`${hook.origin}${hook.pathname}`).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/.*\/gateways\/[^/]+\/gw-py\/orchestrators$/,
    );
    expect(hook.searchParams.get("token")?.length ?? 0).toBeGreaterThan(0);

    const { fromSdk, fromStatus } = await untilSdkMatchesStatus("gw-py", url, 2);
    expect(fromSdk).toEqual(fromStatus);
    expect(fromSdk).toHaveLength(2);
    const g = await client.get<StoredGateway>(Gateways, ns(), "gw-py");
    expect((g.status?.orchestrators ?? []).map((o) => o.name).sort()).toEqual(["py-a", "py-b"]);
    for (const address of fromSdk) expect(address).toMatch(/^https:\/\/127\.\d+\.\d+\.\d+:8935$/);
  });

  it("follows the Gateway as its selection changes: an Orchestrator that loses the label leaves the SDK's list", async () => {
    const url = await orchWebhookUrl("gw-py");
    await kubectl(["label", "orchestrator", "py-b", "-n", ns(), "pool-"]);
    const { fromSdk } = await untilSdkMatchesStatus("gw-py", url, 1);
    const g = await client.get<StoredGateway>(Gateways, ns(), "gw-py");
    expect((g.status?.orchestrators ?? []).map((o) => o.name)).toEqual(["py-a"]);
    expect(fromSdk).toEqual(await statusAddresses("gw-py"));
  });

  it("get_orch_info on each discovered orchestrator returns the capabilities its Orchestrator's status says, and off chain no price (the status says its price is configured)", async () => {
    const url = await orchWebhookUrl("gw-py");
    const { fromSdk } = await untilSdkMatchesStatus("gw-py", url, 1);
    const o = await orchestrators.until("py-a", (x) => x.status?.pricePerUnit !== undefined);
    expect(o.status).toMatchObject({ pricePerUnit: "100", pixelsPerUnit: 1, priceSource: "configured" });
    for (const address of fromSdk) {
      const { code, json } = await driver(["orch-info", "--url", address]);
      expect(code, JSON.stringify(json)).toBe(0);
      const info = json.orchestratorInfo as {
        transcoder: string;
        price_info?: { pricePerUnit?: string; pixelsPerUnit?: string };
        capabilities?: { bitstring?: string[]; version?: string };
        auth_token?: { session_id?: string };
      };
      // The service URI it advertises (-serviceAddr, as its status says), not the address dialled.
      expect(info.transcoder).toBe(`https://${o.status!.serviceAddr}`);
      // Off chain the node quotes no price (core/orchestrator.go PriceInfo: no ticket recipient).
      expect(info.price_info ?? undefined).toBeUndefined();
      // Video capabilities (H.264 is bit 0), and the stand-in says what it is in its version.
      expect(BigInt(info.capabilities?.bitstring?.[0] ?? "0") & 1n).toBe(1n);
      expect(info.capabilities?.version).toMatch(/\+simulated$/);
      expect(info.auth_token?.session_id).toMatch(/.+/);
    }
  });

  it("get_orch_info against a port that is not an orchestrator's service port fails with the SDK's error", async () => {
    // The Gateway's node hook URL: plain HTTP, not TLS.
    const hook = new URL(await orchWebhookUrl("gw-py"));
    const { code, json } = await driver(["orch-info", "--url", `https://${hook.host}`]);
    expect(code).toBe(1);
    expect(json.type).toMatch(/OrchestratorRpcError|Error/);
  });

  it("a discovery URL with a wrong token: the SDK reports the hook's 404 and the driver exits 1", async () => {
    const url = new URL(await orchWebhookUrl("gw-py"));
    url.searchParams.set("token", "not-the-token");
    const { code, json } = await driver(["discover", "--discovery-url", url.toString()]);
    expect(code).toBe(1);
    expect(json.error).toMatch(/HTTP 404/);
    expect(json.error).toMatch(/no gateway hook matches/);
    expect(json.error).toMatch(/token=\*\*\*/);
    expect(json.error).not.toMatch(/not-the-token/);
  });
});
