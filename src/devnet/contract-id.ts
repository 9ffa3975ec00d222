// How the protocol names contracts in its Controller: id = keccak256(<contract name>).
import { keccak256, toUtf8Bytes } from "ethers";

export function contractId(name: string): string {
  return keccak256(toUtf8Bytes(name));
}

/** The Controller id an upgradeable manager's implementation is registered under. */
export function targetName(name: string): string {
  return `${name}Target`;
}
