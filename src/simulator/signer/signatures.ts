// The signatures a go-livepeer node makes with its Ethereum account, as the simulated signer makes
// them with the devnet key. eth/accountmanager.go Sign(msg) is a personal-sign of msg (EIP-191
// "\x19Ethereum Signed Message:\n<len>" + msg, then keccak256) with v 27/28; what is signed:
// - the orchestrator-info signature: Sign(keccak256(address.Hex())) (core/broadcaster.go Sign over
//   the checksummed address text: server/remote_signer.go StartRemoteSignerServer, rpc.go
//   genOrchestratorReq);
// - a ticket: Sign(ticket.Hash()), the hash keccak256 of pm/ticket.go flatten();
// - the remote payment state: Sign(stateBytes) (remote_signer.go signState), no hash first.
// verifyNodeSignature is crypto/verify.go VerifySig: 65 bytes, s in the lower half, v 27 or 28.
import { getAddress, getBytes, hashMessage, keccak256, recoverAddress, type Wallet } from "ethers";
import { orchestratorInfoMessage } from "../../node/wire/signed-identity.ts";

/** secp256k1n / 2: a larger s is refused (crypto/verify.go secp256k1halfN). */
const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/** eth/accountmanager.go Sign: the account's personal-sign of msg. */
export function nodeSign(wallet: Wallet, msg: Uint8Array): Buffer {
  return Buffer.from(getBytes(wallet.signingKey.sign(hashMessage(msg)).serialized));
}

/** What a signer answers /sign-orchestrator-info with, and a gateway puts in OrchestratorRequest.sig. */
export function orchestratorInfoSignature(wallet: Wallet): Buffer {
  return nodeSign(wallet, orchestratorInfoMessage(wallet.address));
}

/** crypto/verify.go VerifySig: does `sig` over `msg` recover to `address`? */
export function verifyNodeSignature(address: string, msg: Uint8Array, sig: Uint8Array): boolean {
  return recoverNodeSigner(msg, sig) === getAddress(address);
}

/** The address a node signature recovers to, or undefined where VerifySig would fail. */
export function recoverNodeSigner(msg: Uint8Array, sig: Uint8Array): string | undefined {
  if (sig.length !== 65) return undefined;
  const s = BigInt(`0x${Buffer.from(sig.subarray(32, 64)).toString("hex")}`);
  if (s > HALF_N) return undefined;
  const v = sig[64];
  if (v !== 27 && v !== 28) return undefined;
  try {
    return recoverAddress(hashMessage(msg), `0x${Buffer.from(sig).toString("hex")}`);
  } catch {
    return undefined;
  }
}

/**
 * core/orchestrator.go VerifySig as an on-chain orchestrator checks a GetOrchestrator request:
 * the signature over keccak256(addr.Hex()) must recover to addr.
 */
export function verifyOrchestratorRequest(address: Uint8Array, sig: Uint8Array): boolean {
  // ethcommon.BytesToAddress: the last 20 bytes, left-padded.
  const padded = Buffer.alloc(20);
  const tail = Buffer.from(address).subarray(Math.max(0, address.length - 20));
  tail.copy(padded, 20 - tail.length);
  const hex = getAddress(`0x${padded.toString("hex")}`);
  return verifyNodeSignature(hex, orchestratorInfoMessage(hex), sig);
}

export function keccak(bytes: Uint8Array): Buffer {
  return Buffer.from(getBytes(keccak256(bytes)));
}
