// The catalog's non-log entries as pure checks: observations in, a finding (or nothing) out.
// The caller does the reading (src/node/client, chain reads); these only judge.
import { isAiCapability } from "../client/capabilities.ts";
import { passwordFileProblem } from "../config/password-file.ts";
import { catalogEntry } from "./catalog.ts";
import type { Finding } from "./types.ts";

function finding(id: string, message: string): Finding {
  const entry = catalogEntry(id);
  return { id, severity: entry.severity, message, meaning: entry.meaning, action: entry.action };
}

/** Payment creation errors rose between two /metrics reads (either read may lack the metric). */
export function paymentCreateErrorsRising(
  previous: number | undefined,
  current: number | undefined,
): Finding | undefined {
  if (previous === undefined || current === undefined || !(current > previous)) return undefined;
  return finding("PaymentCreateErrors", `payment creation errors rose from ${previous} to ${current}`);
}

export interface GpuMemory {
  id: string;
  name?: string;
  memoryTotal: number;
  memoryFree: number;
}

/** Spec limit: GPU memory above 85 % under normal load. */
export function gpuMemoryHigh(gpus: readonly GpuMemory[], threshold = 0.85): Finding | undefined {
  const high = gpus
    .filter((g) => g.memoryTotal > 0)
    .map((g) => ({ g, used: (g.memoryTotal - g.memoryFree) / g.memoryTotal }))
    .filter(({ used }) => used > threshold);
  if (high.length === 0) return undefined;
  const list = high.map(
    ({ g, used }) => `GPU ${g.id}${g.name ? ` (${g.name})` : ""} ${Math.round(used * 100)}%`,
  );
  return finding("GpuMemoryHigh", `GPU memory above ${Math.round(threshold * 100)}%: ${list.join(", ")}`);
}

/** The orchestrator's own view of OrchestratorCapped: current sessions at the limit. */
export function sessionLimitReached(
  current: number | undefined,
  max: number | undefined,
): Finding | undefined {
  if (current === undefined || max === undefined || max <= 0 || current < max) return undefined;
  return finding("OrchestratorCapped", `${current} of ${max} sessions in use: new work is turned away`);
}

/** Deposit and reserve in wei, as TicketBroker reports them for the gateway's account. */
export function gatewayUnfunded(funds: { deposit: bigint; reserve: bigint }): Finding | undefined {
  const empty = [funds.deposit === 0n && "deposit", funds.reserve === 0n && "reserve"].filter(Boolean);
  if (empty.length === 0) return undefined;
  return finding(
    "GatewayUnfunded",
    `the gateway's ${empty.join(" and ")} ${empty.length > 1 ? "are" : "is"} 0`,
  );
}

export interface OrchestratorPrice {
  address: string;
  pricePerUnit: bigint | number | string;
  pixelsPerUnit: bigint | number | string;
}

/**
 * The gateway's cap (-maxPricePerUnit per -pixelsPerUnit) against what orchestrators ask. Only
 * wei prices compare; a currency cap, a cap of 0 (= any price) or no orchestrators says nothing.
 */
export function priceCapTooLow(
  cap: { maxPricePerUnit: string | number; pixelsPerUnit?: string | number },
  orchestrators: readonly OrchestratorPrice[],
): Finding | undefined {
  const capText = String(cap.maxPricePerUnit);
  const pixelsText = String(cap.pixelsPerUnit ?? 1);
  if (!/^\d+$/.test(capText) || !/^\d+$/.test(pixelsText) || orchestrators.length === 0) return undefined;
  const capPrice = BigInt(capText);
  const capPixels = BigInt(pixelsText);
  if (capPrice === 0n || capPixels === 0n) return undefined;
  const priced = orchestrators.flatMap((o) => {
    try {
      const price = BigInt(o.pricePerUnit);
      const pixels = BigInt(o.pixelsPerUnit);
      return pixels > 0n ? [{ o, price, pixels }] : [];
    } catch {
      return [];
    }
  });
  if (priced.length === 0) return undefined;
  // price/pixels > capPrice/capPixels, compared without division.
  const above = priced.filter(({ price, pixels }) => price * capPixels > capPrice * pixels);
  if (above.length < priced.length) return undefined;
  const cheapest = priced.reduce((a, b) => (a.price * b.pixels <= b.price * a.pixels ? a : b));
  return finding(
    "PriceCapTooLow",
    `cap ${capPrice} wei per ${capPixels} pixels is below every orchestrator's price (cheapest: ${cheapest.price} wei per ${cheapest.pixels} pixels at ${cheapest.o.address})`,
  );
}

/** AI work is expected of an orchestrator that advertises no AI capability. */
export function videoOnlyOrchestrator(o: {
  address: string;
  capabilities: readonly number[];
  aiExpected: boolean;
}): Finding | undefined {
  if (!o.aiExpected || o.capabilities.some(isAiCapability)) return undefined;
  return finding(
    "VideoOnlyOrchestratorRejectsAi",
    `${o.address} advertises no AI capability, so it turns AI jobs away silently`,
  );
}

/**
 * The keystore password as the node will read it from its -ethPassword file (`where` names the
 * file's source, e.g. a Secret). The password itself never appears in the finding.
 */
export function passwordTrailingNewline(password: string | Uint8Array, where: string): Finding | undefined {
  const problem = passwordFileProblem(password);
  if (!problem || !/newline/.test(problem.message)) return undefined;
  return finding(
    "KeystorePasswordTrailingNewline",
    `${where} ends with a newline, so the node's keystore will not unlock`,
  );
}
