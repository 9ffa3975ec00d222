// Name resolution for delivery connections: every address a target's name resolves to is judged
// by the address policy right before connecting, on every connection, so a name that turns
// internal later (DNS rebinding) is refused then. A name with any internal address is refused.
import dns from "node:dns";
import type { LookupFunction } from "node:net";
import { type Allowlist, addressRefusal } from "./address-policy.ts";

export class TargetRefusedError extends Error {
  readonly code = "ETARGETREFUSED";
}

/** "refused: hooks.example.com resolves to 10.0.0.7, a private address; ...". */
export function refusalText(host: string, address: string, what: string): string {
  const subject = host === address ? address : `${host} resolves to ${address}`;
  return `refused: ${subject}, ${what}; webhook targets must be public addresses (an operator may allow the range with the delivery allowlist)`;
}

type Resolve = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

export function guardedLookup(allow: Allowlist, resolve: Resolve = dns.lookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      for (const { address } of addresses) {
        const what = addressRefusal(address, allow);
        if (what) return callback(new TargetRefusedError(refusalText(hostname, address, what)), "", 0);
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
