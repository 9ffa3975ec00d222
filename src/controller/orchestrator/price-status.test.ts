import { describe, expect, it } from "vitest";
import type { StoredGateway } from "../../schema/gateway.ts";
import type { StoredOrchestrator } from "../../schema/orchestrator.ts";
import type { DoctorReport, NodeReading } from "../doctor/index.ts";
import { knownPrice, quotesOf } from "./price-status.ts";

const orch = (spec: Partial<StoredOrchestrator["spec"]>): StoredOrchestrator =>
  ({ metadata: { name: "o", namespace: "video" }, spec }) as StoredOrchestrator;
const reading = (price?: NodeReading["price"]): NodeReading => ({
  pod: "o-0",
  at: new Date(0),
  answered: ["/status"],
  simulated: false,
  ...(price ? { price } : {}),
});
const report = (...readings: NodeReading[]): { report: DoctorReport } => ({
  report: { readings, findings: [] },
});

describe("the price an Orchestrator's status shows", () => {
  it.each<[string, Parameters<typeof knownPrice>[0], object]>([
    [
      "its node advertised one to the controller: that, said to be advertised",
      {
        orch: orch({ pricePerUnit: "1000" }),
        doctor: report(reading({ pricePerUnit: "1010", pixelsPerUnit: 1 })),
      },
      { pricePerUnit: "1010", pixelsPerUnit: 1, priceSource: "advertised" },
    ],
    [
      "no answer carried a price (off chain; on chain to an unfunded asker): the spec's, said to be configured",
      { orch: orch({ pricePerUnit: "1000", pixelsPerUnit: 4 }), doctor: report(reading()) },
      { pricePerUnit: "1000", pixelsPerUnit: 4, priceSource: "configured" },
    ],
    [
      "not read yet: the spec's",
      { orch: orch({ pricePerUnit: "0.5USD" }) },
      { pricePerUnit: "0.5USD", pixelsPerUnit: 1, priceSource: "configured" },
    ],
    [
      "no price anywhere (off chain, none set): none made up",
      { orch: orch({}), doctor: report(reading()) },
      {},
    ],
  ])("%s", (_n, seen, want) => expect(knownPrice(seen)).toEqual(want));
});

describe("what an Orchestrator quoted each Gateway", () => {
  const gw = (name: string, orchestrators: NonNullable<StoredGateway["status"]>["orchestrators"]) =>
    ({ metadata: { name, namespace: "video" }, status: { orchestrators } }) as StoredGateway;
  it.each<[string, StoredGateway[], object]>([
    [
      "each gateway whose node lists a quote from it, by name",
      [
        gw("gw-b", [
          {
            name: "o",
            address: "a:1",
            pricePerUnit: "303",
            pixelsPerUnit: 1,
            priceSource: "quoted",
            quotedAt: "T2",
          },
        ]),
        gw("gw-a", [
          { name: "o", address: "a:1", pricePerUnit: "1010", pixelsPerUnit: 1, priceSource: "quoted" },
        ]),
      ],
      {
        quotes: [
          { gateway: "gw-a", pricePerUnit: "1010", pixelsPerUnit: 1 },
          { gateway: "gw-b", pricePerUnit: "303", pixelsPerUnit: 1, quotedAt: "T2" },
        ],
      },
    ],
    [
      "a gateway that prices it from its spec (no quote read) or gives another: none",
      [
        gw("gw-a", [
          { name: "o", address: "a:1", pricePerUnit: "1000", pixelsPerUnit: 1, priceSource: "configured" },
        ]),
        gw("gw-b", [
          { name: "other", address: "b:1", pricePerUnit: "7", pixelsPerUnit: 1, priceSource: "quoted" },
        ]),
      ],
      {},
    ],
    ["no gateways", [], {}],
  ])("%s", (_n, gateways, want) => expect(quotesOf({ orch: orch({}), gateways })).toEqual(want));
});
