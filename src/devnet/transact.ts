// Calling protocol contracts by method name (ethers' Contract has no static types for an ABI
// loaded at runtime), waiting for each transaction to be mined and failing loudly on a revert.
import type { BaseContract, ContractTransactionResponse, Overrides } from "ethers";

/** A read-only call. */
export async function read<T>(contract: BaseContract, method: string, ...args: unknown[]): Promise<T> {
  return (await contract.getFunction(method).staticCall(...args)) as T;
}

/** Sends a transaction, waits for its receipt and throws when it reverted. */
export async function send(
  contract: BaseContract,
  method: string,
  args: unknown[] = [],
  overrides: Overrides & { value?: bigint } = {},
): Promise<void> {
  const tx = (await contract.getFunction(method).send(...args, overrides)) as ContractTransactionResponse;
  const receipt = await tx.wait();
  if (receipt?.status !== 1) {
    throw new Error(`${method} reverted (transaction ${tx.hash})`);
  }
}
