// Test helpers: ask a simulated orchestrator over the node's wire protocol (gRPC over TLS), as a
// gateway does, with a connection opened and closed per call; start one on loopback.

import type { Wallet } from "ethers";
import { NodeConnection } from "../../node/wire/connection.ts";
import type { OrchestratorInfoMessage } from "../../node/wire/messages.ts";
import { signedIdentity } from "../../node/wire/signed-identity.ts";
import { type NodeSimulator, startNodeSimulator } from "../simulator.ts";

/**
 * GetOrchestrator as `asker`: an address (0x..., unsigned: only off-chain orchestrators, which check
 * no signature, answer it) or a wallet, which signs the request as a gateway does (on chain).
 */
export async function getOrchestrator(
  serviceUrl: string,
  asker?: string | Wallet,
): Promise<OrchestratorInfoMessage> {
  const connection = new NodeConnection(serviceUrl, "any");
  const identity =
    asker === undefined
      ? { address: Buffer.alloc(0) }
      : typeof asker === "string"
        ? { address: Buffer.from(asker.slice(2), "hex") }
        : signedIdentity(asker);
  try {
    return await connection.call(
      "GetOrchestrator",
      { type: "OrchestratorRequest", value: identity },
      "OrchestratorInfo",
    );
  } finally {
    connection.close();
  }
}

/** price_info as numbers, for short assertions. */
export function priceOf(
  info: OrchestratorInfoMessage,
): { pricePerUnit: number; pixelsPerUnit: number } | undefined {
  const p = info.priceInfo;
  return p ? { pricePerUnit: Number(p.pricePerUnit), pixelsPerUnit: Number(p.pixelsPerUnit) } : undefined;
}

/** A plain request on the service port (TLS, HTTP/2). */
export async function serviceRequest(
  serviceUrl: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: Buffer,
) {
  const connection = new NodeConnection(serviceUrl, "any");
  try {
    return await connection.request(method, path, headers, body);
  } finally {
    connection.close();
  }
}

/** fetch's shape over the service port's TLS/HTTP/2 (GET, or POST with a body), for short tests. */
export async function serviceFetch(
  url: string,
  init: { method?: string; body?: string } = {},
): Promise<Response> {
  const u = new URL(url);
  const r = await serviceRequest(
    u.origin,
    init.method ?? "GET",
    `${u.pathname}${u.search}`,
    init.body === undefined ? {} : { "content-type": "application/json" },
    init.body === undefined ? undefined : Buffer.from(init.body),
  );
  return new Response(r.status === 204 || r.status === 304 ? null : new Uint8Array(r.body), {
    status: r.status,
  });
}

/** The flags of an orchestrator simulator on loopback ports, no self-check, plus `flags`. */
export const LOOPBACK_ORCHESTRATOR = [
  "-orchestrator",
  "-transcoder",
  "-cliAddr=127.0.0.1:0",
  "-httpAddr=127.0.0.1:0",
  "-startupAvailabilityCheck=false",
];

/** An orchestrator simulator on loopback, its log lines collected; the caller stops it. */
export async function loopbackOrchestrator(
  ...flags: string[]
): Promise<{ sim: NodeSimulator; lines: string[] }> {
  const lines: string[] = [];
  const sim = await startNodeSimulator({
    argv: [...LOOPBACK_ORCHESTRATOR, ...flags],
    log: (l) => lines.push(l),
  });
  return { sim, lines };
}
