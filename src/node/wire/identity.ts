// Who asks an orchestrator for its info: an eth address and its signature over that address, as a
// gateway signs it (core/broadcaster.go OrchInfoSig: the account's personal-sign of
// keccak256(address.Hex())). On chain the node checks the signature (core/orchestrator.go
// VerifySig); off chain it checks nothing, and an empty address is how the official SDK asks
// without a signer.
import { getBytes, keccak256, toUtf8Bytes, Wallet } from "ethers";

export interface OrchestratorIdentity {
  /** 20 bytes, or none. */
  address: Buffer;
  /** 65 bytes (r, s, v with v 27/28), or none. */
  sig: Buffer;
}

export const ANONYMOUS: OrchestratorIdentity = { address: Buffer.alloc(0), sig: Buffer.alloc(0) };

/** The message a gateway signs: keccak256 of its checksummed address text. */
export function orchestratorInfoMessage(address: string): Uint8Array {
  return getBytes(keccak256(toUtf8Bytes(address)));
}

export function signedIdentity(wallet: Wallet): OrchestratorIdentity {
  return {
    address: Buffer.from(getBytes(wallet.address)),
    sig: Buffer.from(getBytes(wallet.signMessageSync(orchestratorInfoMessage(wallet.address)))),
  };
}

/**
 * An identity of the process's own: a key made at start and never stored, signing only its own
 * address. An on-chain orchestrator answers it with its default price (a per-gateway price needs
 * that gateway's signature).
 */
export function ephemeralIdentity(): OrchestratorIdentity {
  return signedIdentity(Wallet.createRandom() as unknown as Wallet);
}
