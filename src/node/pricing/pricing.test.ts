import { describe, expect, it } from "vitest";
import { capPerPixel, comparePrice, type OrchestratorPrice } from "./compare.ts";
import { priceCompatibility } from "./compatibility.ts";
import { PriceInputError } from "./price.ts";
import { decimalCeil, floatString, parseDecimal, parseGoRat, rational, ratText } from "./rational.ts";
import { advertisedPerPixel } from "./ticket-overhead.ts";

const advertised = (pricePerUnit: string, pixelsPerUnit: string | number = 1): OrchestratorPrice => ({
  name: "o",
  pricePerUnit,
  pixelsPerUnit,
  source: "advertised",
});
const configured = (
  pricePerUnit: string,
  pixelsPerUnit: string | number = 1,
  autoAdjustPrice?: boolean,
): OrchestratorPrice => ({
  name: "o",
  pricePerUnit,
  pixelsPerUnit,
  source: "configured",
  ...(autoAdjustPrice === undefined ? {} : { autoAdjustPrice }),
});

describe("comparePrice: a cap against one orchestrator, per pixel on both sides", () => {
  const table: [
    string,
    [string, string | number],
    OrchestratorPrice,
    "within" | "above" | "unknown",
    string?,
  ][] = [
    ["equal wei prices are within", ["1000", 1], advertised("1000"), "within", "1000 wei/pixel"],
    ["one wei more is above", ["1000", 1], advertised("1001"), "above", "1001 wei/pixel"],
    ["each side divides by its own pixelsPerUnit", ["1000", 1], advertised("3000", 3), "within"],
    ["a fraction of a wei per pixel more is above", ["1000", 1], advertised("3001", 3), "above"],
    ["1 per 3 pixels against 2 per 6 pixels is equal", ["1", 3], advertised("2", 6), "within"],
    ["1 per 2 pixels is above 1 per 3 pixels", ["1", 3], advertised("1", 2), "above", "0.5 wei/pixel"],
    [
      "big numbers stay exact",
      ["5000000000000000000001", "1000000000000"],
      advertised("5000000000000000000002", "1000000000000"),
      "above",
    ],
    ["a cap of 0 accepts any price", ["0", 1], advertised("999999"), "within", "accepts any price"],
    ["a free orchestrator is within any cap", ["1", 1], configured("0"), "within"],
    [
      "autoAdjustPrice (default on) adds the nominal 1 % to a configured price",
      ["1000", 1],
      configured("1000"),
      "above",
      "the 1 % ticket overhead of -autoAdjustPrice takes it above",
    ],
    ["1 % more than the base price reaches it", ["1010", 1], configured("1000"), "within", "1010 wei/pixel"],
    ["just under base + 1 % does not", ["1009", 1], configured("1000"), "above"],
    ["autoAdjustPrice=false keeps the configured price", ["1000", 1], configured("1000", 1, false), "within"],
    [
      "the node keeps 3 decimals of wei per pixel, truncated (1/3 * 1.01 -> 0.336)",
      ["336", 1000],
      configured("1", 3),
      "within",
      "0.336 wei/pixel",
    ],
    ["0.336 is above 0.335", ["335", 1000], configured("1", 3), "above"],
    ["an advertised price already carries the overhead", ["1000", 1], advertised("1000"), "within"],
    ["ETH is wei times 1e18", ["0.000000000000001ETH", 1], advertised("1000"), "within"],
    ["currency names ignore case (1000wei = 1000)", ["1000WEI", 1], advertised("1001wei"), "above"],
    ["the same currency compares", ["0.02USD", 1], configured("0.01USD"), "within", "0.0101 USD/pixel"],
    ["the same currency compares in any case", ["0.02usd", 1], configured("0.03USD"), "above"],
    [
      "a wei cap and a USD price cannot be compared",
      ["1000", 1],
      configured("0.5USD"),
      "unknown",
      "price feed",
    ],
    ["a USD cap and a wei price cannot be compared", ["0.5USD", 1], advertised("10"), "unknown", "in wei"],
    ["an unreadable price is unknown", ["1000", 1], advertised("cheap"), "unknown", "cannot be read"],
    ["pixelsPerUnit 0 is unknown", ["1000", 1], advertised("10", 0), "unknown", "integer > 0"],
  ];
  it.each(table)("%s", (_name, [maxPricePerUnit, pixelsPerUnit], offer, verdict, why) => {
    const result = comparePrice(capPerPixel({ maxPricePerUnit, pixelsPerUnit }), offer);
    expect(result.verdict).toBe(verdict);
    if (why) expect(result.why).toContain(why);
  });
});

describe("priceCompatibility: the PriceCompatible condition", () => {
  const o = (
    name: string,
    pricePerUnit: string,
    source: OrchestratorPrice["source"] = "advertised",
    pixelsPerUnit = 1,
  ) => ({ name, pricePerUnit, pixelsPerUnit, source }) as OrchestratorPrice;

  it("every orchestrator within the cap: True", () => {
    const r = priceCompatibility({ maxPricePerUnit: "1500" }, [o("a", "1000"), o("b", "1500")]);
    expect(r).toMatchObject({
      status: "True",
      reason: "PriceCompatible",
      severity: "none",
      compatible: "all",
    });
  });

  it("some above the cap: True with a warning naming who gets the work and who does not", () => {
    const r = priceCompatibility({ maxPricePerUnit: "1200", pixelsPerUnit: 1 }, [
      o("a", "1000"),
      o("b", "1500"),
    ]);
    expect(r).toMatchObject({
      status: "True",
      reason: "PriceCapBelowSome",
      severity: "warning",
      compatible: "some",
    });
    expect(r.message).toBe(
      "work goes only to a, within the cap 1200 per 1 pixel(s) (1200 wei/pixel); above it: b: 1500 wei/pixel",
    );
  });

  it("the cap below every price: False, naming the cheapest price and the cap that reaches it", () => {
    const r = priceCompatibility({ maxPricePerUnit: "1000" }, [o("a", "1500"), o("b", "1200", "configured")]);
    expect(r).toMatchObject({
      status: "False",
      reason: "PriceCapBelowOrchestrators",
      severity: "error",
      compatible: "none",
      cheapest: { name: "b", perPixel: "1212 wei/pixel" },
      capToReach: { maxPricePerUnit: "1212", pixelsPerUnit: "1" },
    });
    expect(r.message).toContain("set maxPricePerUnit to 1212 (pixelsPerUnit 1) or more");
    expect(r.message).toContain("1200 wei/pixel plus the nominal 1 % ticket overhead");
  });

  const reachTable: [string, string, number, OrchestratorPrice, string][] = [
    ["in the gateway's own pixelsPerUnit, rounded up", "100", 1000, o("a", "1", "advertised", 3), "334"],
    ["with the overhead of a configured price", "1", 1, o("a", "1000", "configured"), "1010"],
    ["in the cap's currency", "0.01USD", 1, o("a", "0.02USD", "configured"), "0.0202USD"],
  ];
  it.each(reachTable)("cap to reach: %s", (_n, maxPricePerUnit, pixelsPerUnit, offer, reach) => {
    expect(priceCompatibility({ maxPricePerUnit, pixelsPerUnit }, [offer]).capToReach?.maxPricePerUnit).toBe(
      reach,
    );
  });

  it("none within and some not comparable: Unknown, saying why", () => {
    const r = priceCompatibility({ maxPricePerUnit: "1000" }, [
      o("a", "1500"),
      o("b", "0.5USD", "configured"),
    ]);
    expect(r).toMatchObject({ status: "Unknown", reason: "PriceUnknown", compatible: "unknown" });
    expect(r.message).toContain("a is above the cap 1000");
    expect(r.message).toContain("cannot compare b: its price is in USD and the cap in wei");
  });

  it("some within and some not comparable: True, and the message names the others", () => {
    const r = priceCompatibility({ maxPricePerUnit: "1000" }, [
      o("a", "900"),
      o("b", "0.5USD", "configured"),
    ]);
    expect(r).toMatchObject({ status: "True", reason: "PriceCompatible", compatible: "some" });
    expect(r.message).toContain("cannot compare b");
  });

  it("a cap of 0 accepts any price; no orchestrators is Unknown", () => {
    expect(priceCompatibility({ maxPricePerUnit: "0" }, [o("a", "5")]).reason).toBe("AnyPrice");
    expect(priceCompatibility({ maxPricePerUnit: "10" }, [])).toMatchObject({
      status: "Unknown",
      reason: "NoOrchestrators",
    });
  });

  it.each([
    [{ maxPricePerUnit: "cheap" }, "maxPricePerUnit"],
    [{ maxPricePerUnit: "10", pixelsPerUnit: "0" }, "pixelsPerUnit"],
    [{ maxPricePerUnit: "10", pixelsPerUnit: 1.5 }, "pixelsPerUnit"],
  ])("a bad gateway cap %j throws naming %s and the fix", (cap, field) => {
    try {
      priceCompatibility(cap, [o("a", "1")]);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(PriceInputError);
      expect((err as PriceInputError).field).toBe(field);
      expect((err as PriceInputError).message).toMatch(/: (write wei|give a whole number)/);
    }
  });
});

describe("exact arithmetic helpers", () => {
  it.each([
    ["2/3", 3, "0.667"],
    ["1/8", 2, "0.13"], // half away from zero, as Go's Rat.FloatString
    ["-1/8", 2, "-0.13"],
    ["1200/7", 3, "171.429"],
    ["5", 3, "5.000"],
  ])("floatString(%s, %d) = %s", (text, digits, expected) => {
    const [n, d] = text.split("/");
    expect(floatString(rational(BigInt(n!), BigInt(d ?? "1")), digits)).toBe(expected);
  });

  it("parses decimals, prints Go's Rat text and the smallest decimal at or above a fraction", () => {
    expect(parseDecimal("0.25")).toEqual(rational(1n, 4n));
    expect(parseDecimal("1e3")).toBeUndefined();
    expect(ratText(rational(6n, 4n))).toBe("3/2");
    expect(ratText(rational(8n, 4n))).toBe("2");
    expect(decimalCeil(rational(1n, 4n))).toBe("0.25");
    expect(decimalCeil(rational(1n, 3n), 4)).toBe("0.3334");
  });

  it("the advertised price is never below the base price and free stays free", () => {
    expect(advertisedPerPixel(rational(0n), true)).toEqual(rational(0n));
    expect(advertisedPerPixel(rational(1000n), true)).toEqual(rational(1010n));
    expect(advertisedPerPixel(rational(1000n), false)).toEqual(rational(1000n));
  });
});

describe("parseGoRat: what the node's CLI handlers accept as a number", () => {
  it.each([
    ["1000", rational(1000n)],
    ["3/2", rational(3n, 2n)],
    ["-1.5", rational(-3n, 2n)],
    ["2e3", rational(2000n)],
    ["1.5E-2", rational(3n, 200n)],
    [".5", rational(1n, 2n)],
    ["x", undefined],
    ["1/0", undefined],
    ["", undefined],
    ["0.5USD", undefined],
  ])("%s", (text, expected) => {
    expect(parseGoRat(text)).toEqual(expected);
  });
});
