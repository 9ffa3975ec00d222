// A Gateway selecting the Orchestrator's pool discovers it (its node's own /status lists it), and
// a test stream pushed into it by HTTP ingest comes out as HLS. The push runs inside the cluster
// (the receiver pod runs the image's CLI), so it works where pod IPs are not reachable from here.
import { describe, expect, it } from "vitest";
import { waitFor } from "../../../src/dev/cluster/process.ts";
import { DEFAULT_PORTS } from "../../../src/node/config/addresses.ts";
import { GATEWAY_HTTP_PORT } from "../../../src/schema/gateway.ts";
import {
  APP_NS,
  core,
  ctx,
  fetchInCluster,
  kubectl,
  kubectlRun,
  podsReport,
  RECEIVER,
} from "../support/cluster.ts";
import { condition, POOL, type Resource } from "../support/resources.ts";

const GW = "e2e-gw";

describe("a Gateway and a stream", () => {
  it("discovers the Orchestrator, and a pushed stream comes out as HLS", async () => {
    const body = {
      apiVersion: "livepeer.org/v1alpha1",
      kind: "Gateway",
      metadata: { name: GW, namespace: APP_NS },
      spec: {
        orchestrators: { selector: { matchLabels: POOL } },
        maxPricePerUnit: "1200",
        pixelsPerUnit: 1,
        ingest: { http: true },
        podTemplate: ctx.placement,
      },
    };
    await kubectl(["apply", "--server-side", "--field-manager=e2e", "-f", "-"], JSON.stringify(body));
    let last: Resource | undefined;
    await waitFor(
      "the Gateway Ready",
      async () => {
        last = JSON.parse(await kubectl(["get", "gateways.livepeer.org", GW, "-n", APP_NS, "-o", "json"]));
        return condition(last, "Ready")?.status === "True";
      },
      240_000,
      () => JSON.stringify(last?.status, null, 1),
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await podsReport()}`);
    });
    const ip = (await core.readNamespacedPod({ name: `${GW}-0`, namespace: APP_NS })).status!.podIP!;
    // The node asks the operator for its orchestrators about once a minute.
    let pool = "";
    await waitFor(
      "the gateway node's own /status to list an orchestrator",
      async () => {
        const r = await fetchInCluster(`http://${ip}:${DEFAULT_PORTS.gatewayCli}/status`);
        pool = r.text;
        const known =
          r.status === 200 ? (JSON.parse(r.text) as { OrchestratorPool?: unknown[] }).OrchestratorPool : [];
        return (known?.length ?? 0) > 0;
      },
      150_000,
      () => pool.slice(0, 500),
    );
    const push = await kubectlRun([
      "exec",
      "-n",
      APP_NS,
      RECEIVER,
      "--",
      "/usr/local/bin/node",
      "/app/dist/cli/main.js",
      "push-stream",
      "--url",
      `http://${ip}:${GATEWAY_HTTP_PORT}`,
      "--segments",
      "3",
    ]);
    expect(push.code, push.out).toBe(0);
    expect(push.out).toMatch(/segment 0: 200 transcoded/);
    const playlist = await fetchInCluster(`http://${ip}:${GATEWAY_HTTP_PORT}/stream/test-stream.m3u8`);
    expect(playlist.status, playlist.text).toBe(200);
    expect(playlist.text).toContain("#EXTM3U");
  }, 420_000);
});
