// Name resolution for delivery connections: every address a target's name resolves to is judged
// by the address policy right before connecting, on every connection, so a name that turns
// internal later (DNS rebinding) is refused then. A name with any internal address is refused.
// The egress restriction (loopback-only) is judged the same way, after the address policy; under
// it a name other than localhost is refused before any lookup (a DNS query would leave the host).
import dns from "node:dns";
import type { LookupFunction } from "node:net";
import {
  type Allowlist,
  addressRefusal,
  type DeliveryEgress,
  egressNameRefusal,
  egressRefusal,
} from "./address-policy.ts";

export class TargetRefusedError extends Error {
  readonly code = "ETARGETREFUSED";
}

/** "refused: hooks.example.com resolves to 10.0.0.7, a private address; ...". */
export function refusalText(host: string, address: string, what: string): string {
  const subject = host === address ? address : `${host} resolves to ${address}`;
  return `refused: ${subject}, ${what}; webhook targets must be public addresses (an operator may allow the range with the delivery allowlist)`;
}

const EGRESS_TEXT = "this API delivers only to loopback addresses";

/** What a delivery may connect to: the address policy with its allowlist, then the egress restriction. */
export interface TargetPolicy {
  allow: Allowlist;
  egress: DeliveryEgress;
}

/** Why a delivery to `address` (what `host` resolved to, or the literal itself) is refused; undefined when it may connect. */
export function targetRefusal(host: string, address: string, policy: TargetPolicy): string | undefined {
  const what = addressRefusal(address, policy.allow);
  if (what) return refusalText(host, address, what);
  const notAllowed = egressRefusal(address, policy.egress);
  if (!notAllowed) return undefined;
  const subject = host === address ? address : `${host} resolves to ${address}`;
  return `refused: ${subject}, ${notAllowed}; ${EGRESS_TEXT} (--delivery-egress ${policy.egress})`;
}

/** Why the name `host` may not even be looked up (egress loopback-only); undefined when it may. */
export function nameRefusal(host: string, policy: TargetPolicy): string | undefined {
  const what = egressNameRefusal(host, policy.egress);
  if (!what) return undefined;
  return `refused: ${host}, ${what}; ${EGRESS_TEXT} (--delivery-egress ${policy.egress})`;
}

type Resolve = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

export function guardedLookup(policy: TargetPolicy, resolve: Resolve = dns.lookup): LookupFunction {
  return (hostname, options, callback) => {
    const refusedName = nameRefusal(hostname, policy);
    if (refusedName) return callback(new TargetRefusedError(refusedName), "", 0);
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      for (const { address } of addresses) {
        const refusal = targetRefusal(hostname, address, policy);
        if (refusal) return callback(new TargetRefusedError(refusal), "", 0);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first)
        return callback(
          Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }),
          "",
          0,
        );
      callback(null, first.address, first.family);
    });
  };
}
