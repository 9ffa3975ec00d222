// One protocol transaction from a keystore account, in three parts a command runs in order:
// prepare (encode, estimate gas, check the account can pay), describe (what will be sent, for the
// confirmation prompt or --dry-run), send (sign, submit, wait for the receipt).
import { Contract, formatEther, formatUnits, isError, type TransactionReceipt, type Wallet } from "ethers";
import { ChainActionError, type ChainConnection, type LocatedContract } from "./chain-connection.ts";

export interface PreparedTx {
  chain: ChainConnection;
  signer: Wallet;
  contract: LocatedContract;
  method: string;
  args: unknown[];
  /** Shown instead of raw args, e.g. ["deposit 1.0 ETH", "reserve 0.5 ETH"]. */
  argsShown: string[];
  value: bigint;
  data: string;
  gasLimit: bigint;
  maxFeePerGas: bigint;
  balance: bigint;
}

export interface TxRequest {
  chain: ChainConnection;
  signer: Wallet;
  contract: LocatedContract;
  method: string;
  args: unknown[];
  argsShown: string[];
  value?: bigint;
}

function insufficientFunds(
  from: string,
  balance: bigint,
  value: bigint,
  gasCost: bigint | undefined,
  chain: ChainConnection,
): ChainActionError {
  const has = `account ${from} has ${formatEther(balance)} ETH on chain ${chain.chainId}`;
  if (gasCost === undefined) {
    return new ChainActionError(
      `insufficient funds for gas * price + value: ${has}, and this transaction sends ${formatEther(value)} ETH plus gas: add at least ${formatEther(value - balance)} ETH (plus a little for gas) to the account`,
    );
  }
  const needs = value + gasCost;
  return new ChainActionError(
    `insufficient funds for gas * price + value: ${has}, and this transaction needs up to ${formatEther(needs)} ETH (${formatEther(value)} ETH sent + up to ${formatEther(gasCost)} ETH gas): add at least ${formatEther(needs - balance)} ETH to the account`,
  );
}

export async function prepareTx(req: TxRequest): Promise<PreparedTx> {
  const { chain, signer, contract } = req;
  const value = req.value ?? 0n;
  const from = signer.address;
  const c = new Contract(contract.address, contract.abi, chain.provider);
  const data = c.interface.encodeFunctionData(req.method, req.args);
  const balance = await chain.provider.getBalance(from);
  const fees = await chain.provider.getFeeData();
  const maxFeePerGas = fees.maxFeePerGas ?? fees.gasPrice ?? 0n;
  if (balance < value) throw insufficientFunds(from, balance, value, undefined, chain);
  let gasLimit: bigint;
  try {
    gasLimit = await chain.provider.estimateGas({ from, to: contract.address, data, value });
  } catch (err) {
    if (isError(err, "INSUFFICIENT_FUNDS")) throw insufficientFunds(from, balance, value, undefined, chain);
    const reason = (err as { reason?: string; shortMessage?: string }).reason ?? (err as Error).message;
    throw new ChainActionError(
      `${contract.name}.${req.method} would fail on chain ${chain.chainId}: ${reason}`,
    );
  }
  if (balance < value + gasLimit * maxFeePerGas) {
    throw insufficientFunds(from, balance, value, gasLimit * maxFeePerGas, chain);
  }
  return { ...req, value, data, gasLimit, maxFeePerGas, balance };
}

export function describeTx(tx: PreparedTx): string {
  const lines = [
    `chain      ${tx.chain.url} (chain id ${tx.chain.chainId})`,
    `from       ${tx.signer.address} (balance ${formatEther(tx.balance)} ETH)`,
    `to         ${tx.contract.address} (${tx.contract.name}, from ${tx.contract.via})`,
    `call       ${tx.method}(${tx.argsShown.join(", ")})`,
    `value      ${formatEther(tx.value)} ETH`,
    `gas        up to ${tx.gasLimit} at up to ${formatUnits(tx.maxFeePerGas, "gwei")} gwei (max ${formatEther(tx.gasLimit * tx.maxFeePerGas)} ETH)`,
    `data       ${tx.data}`,
  ];
  return `${lines.join("\n")}\n`;
}

export async function sendTx(tx: PreparedTx): Promise<TransactionReceipt> {
  const signer = tx.signer.connect(tx.chain.provider);
  try {
    const response = await signer.sendTransaction({
      to: tx.contract.address,
      data: tx.data,
      value: tx.value,
      gasLimit: tx.gasLimit,
    });
    const receipt = await response.wait();
    if (receipt?.status !== 1) {
      throw new ChainActionError(`${tx.contract.name}.${tx.method} reverted (transaction ${response.hash})`);
    }
    return receipt;
  } catch (err) {
    if (isError(err, "INSUFFICIENT_FUNDS")) {
      const balance = await tx.chain.provider.getBalance(signer.address);
      throw insufficientFunds(
        signer.address,
        balance,
        tx.value + tx.gasLimit * tx.maxFeePerGas,
        tx.value,
        tx.chain,
      );
    }
    throw err;
  }
}
