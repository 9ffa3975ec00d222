// Remote signers' auth webhook as a signer node calls it (go-livepeer authLivePayment): a real
// `livepeer-operator api` process against the run's control plane, a RemoteSigner created in the
// API server with its hook token's digest set through the status subresource (as the controller
// publishes it), and POSTs of {headers, state} to the hook URL the signer's
// -remoteSignerWebhookUrl carries. Decisions name their cause, spend is counted from the states,
// and a budget spent before a restart of the API is still spent after it.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { mintToken } from "../../src/api/auth/mint.ts";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { type Child, startCommand, waitHealthy } from "../../src/dev/services.ts";
import { freePorts } from "../../src/process/ports.ts";
import { hookTokenDigest, remoteSignerAuthHookUrl } from "../../src/schema/node-hooks.ts";
import { call, errorsOf } from "./api-harness.ts";
import { kubectl, testNamespace } from "./support/cluster.ts";
import { installCrds } from "./support/crds.ts";

const HOOK_TOKEN = randomBytes(24).toString("hex");
const SIGNER = "signer-a";
// 10 s of a live session at 1000 wei/s: 10000 wei. The day allows two such first calls, not three.
const PER_DAY = "25000";

let ns: Awaited<ReturnType<typeof testNamespace>>;
let work: string;
let secretFile: string;
let secret: Uint8Array;
let api: Child | undefined;
let origin: string;
const output: string[] = [];

async function startApi(): Promise<void> {
  const [port] = await freePorts(1);
  api = startCommand(
    "api-signer-auth",
    [
      "api",
      `--listen=127.0.0.1:${port}`,
      `--kubeconfig=${inject("kubeconfig")}`,
      `--namespace=${ns.name}`,
      `--jwt-secret-file=${secretFile}`,
      `--delivery-store=sqlite:${path.join(work, "delivery.sqlite")}`,
      "--delivery-egress=loopback-only",
      "--rate-limit=0",
    ],
    path.join(work, "logs"),
    (line) => output.push(line),
  );
  origin = `http://127.0.0.1:${port}`;
  await waitHealthy(api, `${origin}/readyz`);
}

const hookPath = (token = HOOK_TOKEN) => {
  const url = new URL(remoteSignerAuthHookUrl(origin, ns.name, SIGNER, token));
  return `${url.pathname}${url.search}`;
};

const tenantToken = (sub: string, scope = "sign") => mintToken({ secret, sub, scope, ttlSeconds: 600 });

/** What go-livepeer's GenerateLivePayment sends: the gateway's headers (Go's canonical keys) and the updated state. */
function signerCall(authorization: string | undefined, state: Record<string, unknown>) {
  const headers: Record<string, string[]> = { "Content-Type": ["application/json"] };
  if (authorization) headers.Authorization = [authorization];
  return call(origin, "POST", hookPath(), {
    body: {
      headers,
      state: {
        PMSessionID: "pm-1",
        LastUpdate: new Date().toISOString().replace("Z", "123456Z"),
        OrchestratorAddress: "0x1234567890123456789012345678901234567890",
        App: "",
        AuthExpiry: 0,
        SenderNonce: 1,
        Balance: "0/1",
        InitialPricePerUnit: 1000,
        InitialPixelsPerUnit: 1,
        Type: "live",
        SequenceNumber: 0,
        AuthID: "",
        ...state,
      },
    },
  });
}

beforeAll(async () => {
  await installCrds(kubectl);
  ns = await testNamespace("signer-auth");
  work = mkdtempSync(path.join(os.tmpdir(), "signer-auth-"));
  // As the API reads its secret file: the text's bytes.
  const text = randomBytes(48).toString("hex");
  secret = new TextEncoder().encode(text);
  secretFile = path.join(work, "jwt-secret");
  writeFileSync(secretFile, text, { mode: 0o600 });
  const manifest = path.join(work, "signer.json");
  writeFileSync(
    manifest,
    JSON.stringify({
      apiVersion: "livepeer.org/v1alpha1",
      kind: "RemoteSigner",
      metadata: { name: SIGNER, namespace: ns.name },
      spec: {
        network: "devnet",
        devnet: "livepeer-devnet",
        keystoreSecret: "signer-keystore",
        authCacheSeconds: 30,
        tenants: [
          { name: "acme", maxPrice: { live: "2000" }, budget: { perDay: PER_DAY } },
          { name: "gone", expiresAt: "2020-01-01T00:00:00Z" },
          { name: "beta" },
        ],
      },
    }),
  );
  await kubectl(["apply", "-f", manifest]);
  await kubectl([
    "patch",
    "remotesigner",
    SIGNER,
    "-n",
    ns.name,
    "--subresource=status",
    "--type=merge",
    "-p",
    JSON.stringify({ status: { hookTokenDigest: hookTokenDigest(HOOK_TOKEN) } }),
  ]);
  await startApi();
  // The cache sees the published digest.
  await waitFor(
    "the auth hook to know the signer's token",
    async () => (await signerCall(undefined, {})).status === 200,
    30_000,
  );
}, 180_000);

afterAll(async () => {
  await api?.stop();
  await ns?.remove();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("remote signer auth hook", () => {
  it("refuses bad calls to the hook itself with {errors}: a wrong token, bad JSON, a wrong shape", async () => {
    const wrong = await call(origin, "POST", hookPath("not-the-token"), {
      body: { headers: {}, state: null },
    });
    expect(wrong.status).toBe(404);
    expect(errorsOf(wrong)[0]).toMatch(/no remote signer auth hook matches/);
    const unknown = await call(origin, "POST", hookPath().replace(SIGNER, "nobody"), {
      body: { headers: {} },
    });
    expect(unknown.status).toBe(404);
    const junk = await call(origin, "POST", hookPath(), {
      rawBody: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(junk.status).toBe(400);
    expect(errorsOf(junk).length).toBeGreaterThan(0);
    const shape = await call(origin, "POST", hookPath(), {
      body: { headers: { Authorization: "Bearer x" } },
    });
    expect(shape.status).toBe(422);
    expect(errorsOf(shape)[0]).toMatch(/headers/);
  });

  it("answers refusals with HTTP 200 and the status and reason the signer passes on", async () => {
    const cases: [string | undefined, number, RegExp][] = [
      [undefined, 401, /no tenant token/],
      ["Bearer not.a.jwt", 401, /tenant token refused/],
      [`Bearer ${await tenantToken("acme", "events:write")}`, 403, /no signing scope/],
      [`Bearer ${await tenantToken("stranger")}`, 403, /not a tenant of RemoteSigner/],
      [`Bearer ${await tenantToken("gone")}`, 403, /expired at 2020-01-01T00:00:00Z/],
    ];
    for (const [auth, status, reason] of cases) {
      const a = await signerCall(auth, { StateID: `refused-${status}` });
      expect(a.status, a.text).toBe(200);
      expect(a.json).toMatchObject({ status });
      expect((a.json as { reason: string }).reason).toMatch(reason);
    }
    const price = await signerCall(`Bearer ${await tenantToken("acme")}`, {
      StateID: "expensive",
      InitialPricePerUnit: 2500,
    });
    expect(price.json).toMatchObject({ status: 481 });
  });

  it("allows a tenant with its cap and expiry, counts its spend, and refuses it over its daily budget across a restart", async () => {
    const auth = `Bearer ${await tenantToken("acme")}`;
    const before = Math.floor(Date.now() / 1000);
    const first = await signerCall(auth, { StateID: "s-1" });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({
      status: 200,
      auth_id: "acme",
      maxPrice: { price: "2000", unit: "seconds", currency: "wei" },
    });
    const expiry = (first.json as { expiry: number }).expiry;
    // 30 s granted, less when the day's budget lasts less at 1000 wei/s (15 s left here).
    expect(expiry).toBeGreaterThanOrEqual(before + 14);
    expect(expiry).toBeLessThanOrEqual(before + 31);
    // The same session presented by another tenant is refused.
    const foreign = await signerCall(`Bearer ${await tenantToken("beta")}`, {
      StateID: "s-1",
      AuthID: "acme",
    });
    expect(foreign.json).toMatchObject({ status: 403 });
    expect((foreign.json as { reason: string }).reason).toMatch(/another tenant/);
    // A second session: 20000 of 25000 today.
    expect(((await signerCall(auth, { StateID: "s-2" })).json as { status: number }).status).toBe(200);

    // The API restarts: what was spent is read back from the delivery store.
    await api!.stop();
    await startApi();
    const third = await signerCall(auth, { StateID: "s-3" });
    expect(third.json).toMatchObject({ status: 402 });
    expect((third.json as { reason: string }).reason).toMatch(
      /daily budget of 25000 wei \(30000 wei today, UTC\)/,
    );

    const metrics = await call(origin, "GET", "/metrics");
    expect(metrics.text).toMatch(
      new RegExp(
        `livepeer_signer_auth_decisions_total\\{namespace="${ns.name}",name="${SIGNER}",tenant="acme",outcome="over_budget"\\} 1`,
      ),
    );
    expect(metrics.text).toMatch(
      /livepeer_signer_auth_decision_duration_seconds_count\{namespace="[^"]+",name="signer-a"\} \d+/,
    );
  });
});
