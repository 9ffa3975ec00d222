// net.Orchestrator on a simulated orchestrator's service port (server/rpc.go):
// - GetOrchestrator: on chain the request's signature must recover to its address (verifyOrchestratorReq,
//   core/orchestrator.go VerifySig over keccak256(address.Hex())): else "Invalid orchestrator
//   request: orchestrator req sig check failed" (an anonymous asker, as the official SDK without a
//   signer, fails so too); off chain nothing is checked. Then refused at the session limit
//   (CheckCapacity: "Invalid orchestrator request: OrchestratorCapped"), else an OrchestratorInfo
//   for the asking address (its per-gateway price) with a fresh auth token.
// - EndTranscodingSession: the auth token must be one this run handed out ("Invalid auth token");
//   the session ends at once.
// - Ping: the value signed by the node's account on chain (core/orchestrator.go Sign), nothing
//   off chain.
import { ORCHESTRATOR_SERVICE } from "../node/wire/grpc.ts";
import { decodeMessage, encodeMessage } from "../node/wire/messages.ts";
import type { AuthTokens } from "./auth-tokens.ts";
import type { GlogLevel } from "./glog.ts";
import type { UnaryMethod } from "./grpc-server.ts";
import { type InfoSource, orchestratorInfoMessage } from "./orchestrator-info-message.ts";
import type { OrchestratorSessions } from "./orchestrator-sessions.ts";
import { verifyOrchestratorRequest } from "./signer/signatures.ts";

export interface OrchestratorRpcDeps {
  info: InfoSource;
  tokens: AuthTokens;
  sessions: OrchestratorSessions;
  /** On chain (also: requests' signatures are checked): the account's signature of keccak256(value); absent off chain. */
  sign?: (value: Uint8Array) => Promise<Buffer>;
  log: (level: GlogLevel, where: string, message: string) => void;
}

export function orchestratorRpc(d: OrchestratorRpcDeps): Record<string, Record<string, UnaryMethod>> {
  const { state } = d.info;
  return {
    [ORCHESTRATOR_SERVICE]: {
      GetOrchestrator: async (bytes) => {
        const request = decodeMessage("OrchestratorRequest", bytes);
        if (d.sign && !verifyOrchestratorRequest(request.address, request.sig)) {
          d.log("E", "rpc.go:681", "orchestrator req sig check failed");
          throw new Error("Invalid orchestrator request: orchestrator req sig check failed");
        }
        if (state.currentSessions >= state.sessionLimit) {
          throw new Error("Invalid orchestrator request: OrchestratorCapped");
        }
        const info = await orchestratorInfoMessage(d.info, request.address, d.tokens.issue());
        return encodeMessage("OrchestratorInfo", info);
      },
      EndTranscodingSession: async (bytes) => {
        const { authToken } = decodeMessage("EndTranscodingSessionRequest", bytes);
        if (!d.tokens.verify(authToken)) throw new Error("Invalid auth token");
        d.sessions.end(authToken!.sessionId, "ended by the gateway (EndTranscodingSession)");
        return encodeMessage("EndTranscodingSessionResponse", {});
      },
      Ping: async (bytes) => {
        const { value } = decodeMessage("PingPong", bytes);
        d.log("I", "rpc.go:381", "Received Ping request");
        return encodeMessage("PingPong", { value: d.sign ? await d.sign(value) : Buffer.alloc(0) });
      },
    },
  };
}
