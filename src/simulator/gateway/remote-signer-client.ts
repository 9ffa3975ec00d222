// A keyless gateway's remote signer (-remoteSignerUrl, -remoteSignerHeaders), asked as go-livepeer's
// gateway asks it at start (starter.go, server/remote_signer.go GetOrchInfoSig): a URL without a
// scheme gets https://; POST <url>/sign-orchestrator-info with Content-Type application/json and
// the headers, a 30 s timeout; a failure ends the start ("Unable to query remote signer: ...", exit
// 1). The answer's address and signature are then what the gateway asks orchestrators with
// (OrchestratorRequest address + sig). Off chain the gateway has no ticket sender, so its segments
// carry no payment (genPayment returns "" without a Sender): the signer pays only live AI
// payments (server/live_payment.go), which the simulated gateway does not make.
import { getAddress } from "ethers";
import type { OrchestratorIdentity } from "../../node/wire/identity.ts";
import type { GlogLevel } from "../glog.ts";
import { parseHeaderMap } from "../signer/auth-webhook.ts";

type Log = (level: GlogLevel, where: string, message: string) => void;

const SIGNER_TIMEOUT_MS = 30_000;

export interface RemoteSignerLink {
  /** The signer's base URL. */
  url: URL;
  /** -remoteSignerHeaders (sent to the signer only, never to an orchestrator webhook). */
  headers: Record<string, string>;
  /** The signer's address and its orchestrator-info signature. */
  identity: OrchestratorIdentity;
}

export class RemoteSignerQueryError extends Error {}

/** starter.go: `host:port` or a bare host is taken as https://. */
export function remoteSignerUrl(flag: string): URL {
  try {
    const url = new URL(flag);
    if (url.host !== "" && /^https?:$/.test(url.protocol)) return url;
  } catch {}
  return new URL(`https://${flag}`);
}

export async function queryRemoteSigner(
  flag: string,
  headersFlag: string | undefined,
  log: Log,
): Promise<RemoteSignerLink> {
  const url = remoteSignerUrl(flag);
  const headers = parseHeaderMap(headersFlag);
  log(
    "I",
    "starter.go:1674",
    `Retrieving OrchestratorInfo fields from remote signer: ${url.toString().replace(/\/$/, "")}`,
  );
  const target = new URL("/sign-orchestrator-info", url);
  let response: Response;
  try {
    response = await fetch(target, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json" },
      signal: AbortSignal.timeout(SIGNER_TIMEOUT_MS),
    });
  } catch (err) {
    throw fail(log, `failed to call remote signer: Post "${target}": ${(err as Error).message}`);
  }
  const text = await response.text();
  if (response.status !== 200) throw fail(log, `remote signer returned status ${response.status}: ${text}`);
  let address: Buffer;
  let sig: Buffer;
  try {
    const body = JSON.parse(text) as { address?: unknown; signature?: unknown };
    address = hexBytes(body.address);
    sig = hexBytes(body.signature);
  } catch (err) {
    throw fail(log, `failed to parse remote signer response: ${(err as Error).message}`);
  }
  const shown = getAddress(
    `0x${Buffer.concat([Buffer.alloc(20), address])
      .subarray(-20)
      .toString("hex")}`,
  );
  log("I", "starter.go:1682", `Using Ethereum address from remote signer: ${shown}`);
  return { url, headers, identity: { address, sig } };
}

function fail(log: Log, why: string): RemoteSignerQueryError {
  const message = `Unable to query remote signer: ${why}`;
  log("F", "starter.go:1677", message);
  return new RemoteSignerQueryError(message);
}

/** remote_signer.go HexBytes: a JSON string of hex, 0x optional. */
function hexBytes(value: unknown): Buffer {
  if (typeof value !== "string")
    throw new Error("json: cannot unmarshal into Go value of type server.HexBytes");
  const hex = value.replace(/^0x/, "");
  if (!/^([0-9a-fA-F]{2})*$/.test(hex)) throw new Error(`invalid hex string: encoding/hex: invalid byte`);
  return Buffer.from(hex, "hex");
}
