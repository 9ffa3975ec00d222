// A signed identity, as a gateway signs it (core/broadcaster.go OrchInfoSig: the account's
// personal-sign of keccak256(address.Hex())). Apart from identity.ts so that what only reads
// (the controller) never loads ethers.
import { getBytes, keccak256, toUtf8Bytes, Wallet } from "ethers";
import type { OrchestratorIdentity } from "./identity.ts";

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

/** An identity of the process's own: a key made at start and never stored, signing only its own address. */
export function ephemeralIdentity(): OrchestratorIdentity {
  return signedIdentity(Wallet.createRandom() as unknown as Wallet);
}
