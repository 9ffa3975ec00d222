// What each orchestrator quoted a gateway, as the gateway's own node lists it (pure). On chain an
// orchestrator quotes only a signed, funded asker, so the controller cannot read the price a
// gateway gets by asking itself; the gateway's node polls its orchestrators as itself and lists
// their answers on its CLI port (GET /getNetworkCapabilities), which the node doctor reads. A
// listed orchestrator is matched to an Orchestrator resource by its eth address (the ticket
// recipient or its own address against spec.ethAcctAddr) or by the service URI it advertises
// against the address the gateway was given or the Orchestrator's serviceAddr.
import type { Quote } from "../doctor/node-reading.ts";

export type { Quote };

/** What the matching reads of an Orchestrator. */
export interface QuotedOrchestrator {
  /** spec.ethAcctAddr */
  ethAddress?: string | undefined;
  /** status.serviceAddr */
  serviceAddr?: string | undefined;
  /** The address the gateway was given for it (host:port). */
  givenAddress: string;
}

const ZERO = /^0x0{40}$/i;

/** host:port of a URI or of a bare host:port, lower-cased; undefined when it cannot be read. */
export function hostPort(address: string | undefined): string | undefined {
  if (!address) return undefined;
  try {
    const u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(address) ? address : `https://${address}`);
    return `${u.hostname.toLowerCase()}:${u.port || (u.protocol === "http:" ? "80" : "443")}`;
  } catch {
    return undefined;
  }
}

/** The quote the gateway's node lists for this orchestrator, if any. */
export function quoteFor(o: QuotedOrchestrator, quotes: readonly Quote[]): Quote | undefined {
  const eth = o.ethAddress?.toLowerCase();
  const urls = new Set([hostPort(o.givenAddress), hostPort(o.serviceAddr)].filter((u) => u !== undefined));
  const byEth = (q: Quote) =>
    eth !== undefined && q.addresses.some((a) => !ZERO.test(a) && a.toLowerCase() === eth);
  const otherEth = (q: Quote) => eth !== undefined && q.addresses.some((a) => !ZERO.test(a)) && !byEth(q);
  const byUrl = (q: Quote) => {
    const u = hostPort(q.orchUri);
    return u !== undefined && urls.has(u);
  };
  return quotes.find(byEth) ?? quotes.find((q) => byUrl(q) && !otherEth(q));
}
