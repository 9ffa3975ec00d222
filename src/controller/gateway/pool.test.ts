import { describe, expect, it } from "vitest";
import { capabilitiesOf, type OrchestratorView, orchestratorPool, type PriceCheck } from "./pool.ts";

const orch = (
  name: string,
  labels: Record<string, string>,
  status: OrchestratorView["status"],
  spec: OrchestratorView["spec"] = {},
): OrchestratorView => ({ metadata: { name, labels }, spec, status });
const ready = { type: "Ready", status: "True", reason: "Serving" };
const any: PriceCheck = () => true;

describe("the orchestrators a gateway is given", () => {
  const fleet = [
    orch(
      "b",
      { pool: "main" },
      { conditions: [ready], serviceAddr: "b-0.b-pods.video.svc.cluster.local:8935" },
    ),
    orch(
      "a",
      { pool: "main" },
      { conditions: [ready], serviceAddr: "a.example.com:8935", pricePerUnit: "900", pixelsPerUnit: 3 },
    ),
    orch("c", { pool: "other" }, { conditions: [ready], serviceAddr: "c:8935" }),
    orch(
      "d",
      { pool: "main" },
      { conditions: [{ type: "Ready", status: "False", reason: "NodeUnreachable" }] },
    ),
    orch("e", { pool: "main" }, undefined),
    orch("f", { pool: "main" }, { conditions: [ready] }),
  ];

  it("gives the Ready ones the selector picks, in name order, and says why the rest are left out", () => {
    const pool = orchestratorPool({ matchLabels: { pool: "main" } }, fleet, "service", any);
    expect(pool.selected).toBe(5);
    expect(pool.given.map((g) => [g.name, g.address])).toEqual([
      ["a", "a.example.com:8935"],
      ["b", "b-0.b-pods.video.svc.cluster.local:8935"],
    ]);
    expect(pool.leftOut).toEqual([
      { name: "d", reason: "not Ready (NodeUnreachable)" },
      { name: "e", reason: "not Ready (no status yet)" },
      { name: "f", reason: "no address yet" },
    ]);
  });

  it("uses pod addresses where there is no cluster DNS", () => {
    const pool = orchestratorPool(
      { matchLabels: { pool: "main" } },
      fleet,
      { podAddress: (n) => (n === "a" ? "127.1.0.7:8935" : undefined) },
      any,
    );
    expect(pool.given).toEqual([
      {
        name: "a",
        address: "127.1.0.7:8935",
        pricePerUnit: "900",
        pixelsPerUnit: 3,
        priceSource: "advertised",
        priceCompatible: true,
      },
    ]);
    expect(pool.leftOut.map((l) => l.name)).toEqual(["b", "d", "e", "f"]);
  });

  it("prices come from the gateway's quote first, then the node's advertised price, then the spec", () => {
    const seen: unknown[] = [];
    const check: PriceCheck = (_name, p) => {
      seen.push(p);
      return p.pricePerUnit === undefined ? undefined : Number(p.pricePerUnit) <= 1000;
    };
    const pool = orchestratorPool(
      {},
      [
        orch(
          "node-reported",
          {},
          { conditions: [ready], serviceAddr: "x:1", pricePerUnit: "1200" },
          { pricePerUnit: "10" },
        ),
        orch(
          "from-spec",
          {},
          { conditions: [ready], serviceAddr: "y:1" },
          { pricePerUnit: "10", pixelsPerUnit: 2 },
        ),
        orch("free", {}, { conditions: [ready], serviceAddr: "z:1" }),
        orch(
          "quoted",
          {},
          { conditions: [ready], serviceAddr: "q:1", pricePerUnit: "1200" },
          { pricePerUnit: "2000" },
        ),
        orch(
          "status-configured",
          {},
          { conditions: [ready], serviceAddr: "s:1", pricePerUnit: "10", priceSource: "configured" },
          { pricePerUnit: "10" },
        ),
      ],
      "service",
      check,
      { quotes: [{ orchUri: "https://q:1", addresses: [], pricePerUnit: "500", pixelsPerUnit: 1 }] },
    );
    expect(seen).toEqual([
      { pixelsPerUnit: 1, source: "configured" },
      { pricePerUnit: "10", pixelsPerUnit: 2, source: "configured" },
      { pricePerUnit: "1200", pixelsPerUnit: 1, source: "advertised" },
      { pricePerUnit: "500", pixelsPerUnit: 1, source: "quoted" },
      { pricePerUnit: "10", pixelsPerUnit: 1, source: "configured" },
    ]);
    expect(pool.given.map((g) => [g.name, g.priceSource, g.priceCompatible])).toEqual([
      ["free", undefined, undefined],
      ["from-spec", "configured", true],
      ["node-reported", "advertised", false],
      ["quoted", "quoted", true],
      ["status-configured", "configured", true],
    ]);
  });

  it("an empty selector picks every Orchestrator of the namespace; a selector matching none gives none", () => {
    expect(orchestratorPool({}, fleet, "service", any).selected).toBe(6);
    expect(orchestratorPool({ matchLabels: { pool: "nowhere" } }, fleet, "service", any)).toEqual({
      selected: 0,
      given: [],
      leftOut: [],
    });
  });
});

describe("what a given orchestrator serves, in the SDK's caps words", () => {
  it.each<[string, OrchestratorView["status"], string[]]>([
    ["nothing", { conditions: [ready] }, []],
    [
      "ready models only",
      {
        ai: {
          models: [
            { pipeline: "text-to-image", modelId: "stabilityai/sd-turbo", ready: true },
            { pipeline: "image-to-video", modelId: "x/y", ready: false },
          ],
        },
      },
      ["text-to-image/stabilityai/sd-turbo"],
    ],
    [
      "live apps with a healthy runner only",
      {
        ai: {
          models: [],
          live: [
            { app: "live-video-to-video/streamdiffusion", healthy: 1, desired: 2 },
            { app: "live-video-to-video/comfyui", healthy: 0, desired: 1 },
          ],
        },
      },
      ["live-video-to-video/streamdiffusion"],
    ],
  ])("%s", (_, status, caps) => {
    expect(capabilitiesOf(orch("o", {}, status))).toEqual(caps);
  });

  it("travels with the given orchestrator (the discovery hook filters on it)", () => {
    const pool = orchestratorPool(
      { matchLabels: { pool: "live" } },
      [
        orch(
          "l",
          { pool: "live" },
          {
            conditions: [ready],
            serviceAddr: "l:8935",
            ai: { live: [{ app: "live-video-to-video/sd", healthy: 1, desired: 1 }] },
          },
        ),
      ],
      "service",
      any,
    );
    expect(pool.given[0]?.capabilities).toEqual(["live-video-to-video/sd"]);
  });
});
