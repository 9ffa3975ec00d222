// How a simulated gateway reaches orchestrators, as go-livepeer's gateway does: over TLS without
// verifying the self-signed certificate (server/rpc.go startOrchestratorClient and segment_rpc.go's
// httpClient: InsecureSkipVerify), one kept HTTP/2 connection per orchestrator origin for
// GetOrchestrator / EndTranscodingSession (gRPC), POST /segment, rendition downloads and AI jobs,
// all closed when the gateway stops. It asks GetOrchestrator as itself: on chain with its account's
// address and signature (core/broadcaster.go OrchInfoSig), off chain (or when its key cannot be
// unlocked) anonymously.
import { NodeEndpointError } from "../../node/client/errors.ts";
import { NodeConnection } from "../../node/wire/connection.ts";
import { ANONYMOUS, type OrchestratorIdentity } from "../../node/wire/identity.ts";
import type { OrchestratorInfoMessage } from "../../node/wire/messages.ts";
import { signedIdentity } from "../../node/wire/signed-identity.ts";
import type { SimulatedEthClient } from "../chain-client.ts";

export class OrchestratorConnections {
  readonly #connections = new Map<string, NodeConnection>();
  readonly #eth: SimulatedEthClient | undefined;
  #identity: Promise<OrchestratorIdentity> | undefined;
  readonly #identityFrom: (() => Promise<OrchestratorIdentity>) | undefined;

  /**
   * `identityFrom`: where the identity comes from instead of the keystore: a remote signer's
   * /sign-orchestrator-info answer (a keyless gateway), or a signer's own key.
   */
  constructor(eth: SimulatedEthClient | undefined, identityFrom?: () => Promise<OrchestratorIdentity>) {
    this.#eth = eth;
    this.#identityFrom = identityFrom;
  }

  /** The connection to the origin of `url` (a service URI as written, or a URL on it). */
  to(url: string): NodeConnection {
    const origin = new URL(url).origin;
    let connection = this.#connections.get(origin);
    if (!connection) {
      connection = new NodeConnection(origin, "any");
      this.#connections.set(origin, connection);
    }
    return connection;
  }

  /** The gateway holds its own key (on chain): its segments name it as the payment's sender. */
  get ownKey(): boolean {
    return this.#identityFrom === undefined && this.#eth !== undefined;
  }

  /** Who the gateway is when it asks (signed once, then kept). */
  identity(): Promise<OrchestratorIdentity> {
    if (this.#identityFrom) return this.#identityFrom();
    const eth = this.#eth;
    if (!eth) return Promise.resolve(ANONYMOUS);
    this.#identity ??= eth.wallet().then(signedIdentity, () => {
      this.#identity = undefined; // tried again on the next ask
      return ANONYMOUS;
    });
    return this.#identity;
  }

  async getOrchestrator(
    url: string,
    timeoutMs: number,
    options: { ignoreCapacityCheck?: boolean } = {},
  ): Promise<OrchestratorInfoMessage> {
    const identity = await this.identity();
    return this.to(url).call(
      "GetOrchestrator",
      {
        type: "OrchestratorRequest",
        value: {
          address: identity.address,
          sig: identity.sig,
          ...(options.ignoreCapacityCheck ? { ignoreCapacityCheck: true } : {}),
        },
      },
      "OrchestratorInfo",
      { timeoutMs },
    );
  }

  /** GET a URL on an orchestrator (a rendition): its bytes, or an error naming the status. */
  async download(url: string, timeoutMs: number): Promise<Buffer> {
    const u = new URL(url);
    const answer = await this.to(url).request("GET", `${u.pathname}${u.search}`, {}, undefined, {
      timeoutMs,
    });
    if (answer.status !== 200)
      throw new Error(`GET ${url}: HTTP ${answer.status} ${answer.body.toString("utf8").trim()}`);
    return answer.body;
  }

  closeAll(): void {
    for (const connection of this.#connections.values()) connection.close();
    this.#connections.clear();
  }
}

/** A failed call in the words of Go's net/http, as the node logs it: `Post "<url>": <why>`. */
export function callError(method: "Get" | "Post", url: string, err: unknown): string {
  const prefix = `${method} ${JSON.stringify(url)}`;
  if (err instanceof NodeEndpointError) {
    if (err.reason === "timeout")
      return `${prefix}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`;
    if (err.reason === "connection-refused")
      return `${prefix}: dial tcp ${new URL(url).host}: connect: connection refused`;
    return `${prefix}: ${err.message.replace(/^.* failed: /, "")}`;
  }
  return `${prefix}: ${(err as Error).message}`;
}
