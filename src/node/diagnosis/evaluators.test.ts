import { describe, expect, it } from "vitest";
import {
  gatewayUnfunded,
  gpuMemoryHigh,
  passwordTrailingNewline,
  paymentCreateErrorsRising,
  priceCapTooLow,
  sessionLimitReached,
  videoOnlyOrchestrator,
} from "./evaluators.ts";

describe("paymentCreateErrorsRising", () => {
  it("reports a counter that rose between two reads", () => {
    const f = paymentCreateErrorsRising(3, 5);
    expect(f).toMatchObject({
      id: "PaymentCreateErrors",
      severity: "error",
      message: "payment creation errors rose from 3 to 5",
    });
    expect(f?.action).toContain("deposit");
  });
  it.each([
    [5, 5],
    [5, 2],
    [undefined, 5],
    [5, undefined],
  ])("says nothing for %s -> %s", (a, b) => {
    expect(paymentCreateErrorsRising(a, b)).toBeUndefined();
  });
});

describe("gpuMemoryHigh", () => {
  const gb = 1024 ** 3;
  it("names every GPU above 85 % used", () => {
    const f = gpuMemoryHigh([
      { id: "0", name: "Tesla T4", memoryTotal: 16 * gb, memoryFree: 1 * gb },
      { id: "1", memoryTotal: 16 * gb, memoryFree: 8 * gb },
      { id: "2", memoryTotal: 10 * gb, memoryFree: 0.5 * gb },
    ]);
    expect(f?.id).toBe("GpuMemoryHigh");
    expect(f?.severity).toBe("warning");
    expect(f?.message).toBe("GPU memory above 85%: GPU 0 (Tesla T4) 94%, GPU 2 95%");
  });
  it("85 % exactly, idle GPUs, unknown totals and no GPUs are fine", () => {
    expect(gpuMemoryHigh([{ id: "0", memoryTotal: 100, memoryFree: 15 }])).toBeUndefined();
    expect(gpuMemoryHigh([{ id: "0", memoryTotal: 100, memoryFree: 100 }])).toBeUndefined();
    expect(gpuMemoryHigh([{ id: "0", memoryTotal: 0, memoryFree: 0 }])).toBeUndefined();
    expect(gpuMemoryHigh([])).toBeUndefined();
  });
  it("takes another threshold", () => {
    expect(gpuMemoryHigh([{ id: "0", memoryTotal: 100, memoryFree: 40 }], 0.5)?.message).toContain("60%");
  });
});

describe("sessionLimitReached", () => {
  it("reports sessions at the limit as OrchestratorCapped", () => {
    expect(sessionLimitReached(8, 8)).toMatchObject({
      id: "OrchestratorCapped",
      message: "8 of 8 sessions in use: new work is turned away",
    });
    expect(sessionLimitReached(9, 8)?.id).toBe("OrchestratorCapped");
  });
  it.each([
    [7, 8],
    [0, 0],
    [undefined, 8],
    [3, undefined],
  ])("says nothing for %s of %s", (current, max) => {
    expect(sessionLimitReached(current, max)).toBeUndefined();
  });
});

describe("gatewayUnfunded", () => {
  it.each([
    [0n, 0n, "the gateway's deposit and reserve are 0"],
    [0n, 5n, "the gateway's deposit is 0"],
    [5n, 0n, "the gateway's reserve is 0"],
  ])("deposit %s reserve %s", (deposit, reserve, message) => {
    expect(gatewayUnfunded({ deposit, reserve })).toMatchObject({
      id: "GatewayUnfunded",
      severity: "error",
      message,
    });
  });
  it("a funded gateway is fine", () => {
    expect(gatewayUnfunded({ deposit: 10n ** 17n, reserve: 1n })).toBeUndefined();
  });
});

describe("priceCapTooLow", () => {
  const orchs = [
    { address: "https://a:8935", pricePerUnit: 1200, pixelsPerUnit: 1 },
    { address: "https://b:8935", pricePerUnit: "5000", pixelsPerUnit: "2" },
  ];
  it("reports a cap below every orchestrator's price per pixel, naming the cheapest", () => {
    const f = priceCapTooLow({ maxPricePerUnit: "300", pixelsPerUnit: "1" }, orchs);
    expect(f?.id).toBe("PriceCapTooLow");
    expect(f?.message).toBe(
      "cap 300 wei per 1 pixels is below every orchestrator's price (cheapest: 1200 wei per 1 pixels at https://a:8935)",
    );
  });
  it("compares per pixel across different pixelsPerUnit", () => {
    // 2600 per 2 pixels = 1300/pixel: b (2500/pixel) is above, a (1200) is below -> compatible.
    expect(priceCapTooLow({ maxPricePerUnit: 2600, pixelsPerUnit: 2 }, orchs)).toBeUndefined();
    // 2399 per 2 pixels < 1200/pixel -> too low for both.
    expect(priceCapTooLow({ maxPricePerUnit: 2399, pixelsPerUnit: 2 }, orchs)?.id).toBe("PriceCapTooLow");
  });
  it("an equal price is accepted (the node filters price > cap)", () => {
    expect(priceCapTooLow({ maxPricePerUnit: 1200 }, orchs)).toBeUndefined();
  });
  it.each([
    ["0 means any price", { maxPricePerUnit: "0" }, orchs],
    ["currency caps need a price feed", { maxPricePerUnit: "0.01USD" }, orchs],
    ["no orchestrators", { maxPricePerUnit: "300" }, []],
    [
      "unparseable orchestrator prices",
      { maxPricePerUnit: "300" },
      [{ address: "x", pricePerUnit: "1USD", pixelsPerUnit: 1 }],
    ],
  ])("says nothing: %s", (_, cap, list) => {
    expect(priceCapTooLow(cap, list)).toBeUndefined();
  });
});

describe("videoOnlyOrchestrator", () => {
  it("reports AI expected of a video-only orchestrator", () => {
    expect(
      videoOnlyOrchestrator({ address: "https://o:8935", capabilities: [0, 1, 2], aiExpected: true }),
    ).toMatchObject({
      id: "VideoOnlyOrchestratorRejectsAi",
      severity: "error",
    });
  });
  it("an AI capability or no AI expectation is fine", () => {
    expect(videoOnlyOrchestrator({ address: "o", capabilities: [0, 27], aiExpected: true })).toBeUndefined();
    expect(videoOnlyOrchestrator({ address: "o", capabilities: [0], aiExpected: false })).toBeUndefined();
  });
});

describe("passwordTrailingNewline", () => {
  it.each([
    ["LF", "s3cret\n"],
    ["CRLF", "s3cret\r\n"],
    ["bytes", new TextEncoder().encode("s3cret\n")],
  ])("finds a trailing newline (%s) without quoting the password", (_, password) => {
    const f = passwordTrailingNewline(password, "Secret ns/keys key password");
    expect(f).toMatchObject({ id: "KeystorePasswordTrailingNewline", severity: "error" });
    expect(f?.message).toContain("Secret ns/keys key password");
    expect(JSON.stringify(f)).not.toContain("s3cret");
  });
  it.each([
    ["no newline", "s3cret"],
    ["a newline inside", "s3c\nret"],
    ["empty (a different problem)", ""],
  ])("says nothing: %s", (_, password) => {
    expect(passwordTrailingNewline(password, "x")).toBeUndefined();
  });
});
