// Who asks an orchestrator for its info: an eth address and its signature over that address (see
// signed-identity.ts for making one). Off chain the node checks nothing, and an empty address is
// how the official SDK asks without a signer; on chain the node checks the signature
// (core/orchestrator.go VerifySig) and quotes only a sender with reserve.

export interface OrchestratorIdentity {
  /** 20 bytes, or none. */
  address: Buffer;
  /** 65 bytes (r, s, v with v 27/28), or none. */
  sig: Buffer;
}

export const ANONYMOUS: OrchestratorIdentity = { address: Buffer.alloc(0), sig: Buffer.alloc(0) };
