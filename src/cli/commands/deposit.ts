import { parseArgs } from "node:util";
import { formatEther } from "ethers";
import { AmountError, negativeAmountOption, parseEthAmount } from "../../devnet/amounts.ts";
import { ChainActionError } from "../../devnet/chain-connection.ts";
import { contractAt } from "../../devnet/deploy.ts";
import { read } from "../../devnet/transact.ts";
import { runProtocolTx, TX_OPTIONS, TX_OPTIONS_USAGE, TxUsageError } from "../../devnet/tx-command.ts";
import { type Command, UsageError } from "../command.ts";

const usage = `Usage: livepeer-operator deposit --deposit ETH --reserve ETH [options]

Adds to a gateway's TicketBroker deposit and reserve (TicketBroker.fundDepositAndReserve), what
node_cli's "deposit funds" option does: both amounts are explicit, in ETH (e.g. 0.5), and are
sent from the account as the transaction's value. A gateway whose deposit or reserve is 0 stops
paying orchestrators without any error. Shows the transaction and asks before sending.

  --deposit ETH          added to the deposit (0 or more)
  --reserve ETH          added to the reserve (0 or more; not both 0)

${TX_OPTIONS_USAGE}

Example: livepeer-operator deposit --account gateway-0 --deposit 1 --reserve 0.5`;

export const command: Command = {
  name: "deposit",
  summary: "Fund a gateway's ticket deposit and reserve with explicit ETH amounts.",
  usage,
  async run(args) {
    const negative = negativeAmountOption(args, ["--deposit", "--reserve"]);
    if (negative) throw new UsageError(negative.message);
    let values: Record<string, string | boolean | undefined>;
    try {
      ({ values } = parseArgs({
        args,
        options: { ...TX_OPTIONS, deposit: { type: "string" }, reserve: { type: "string" } },
      }));
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    if (values.deposit === undefined || values.reserve === undefined) {
      throw new UsageError(
        "give both --deposit and --reserve in ETH (either may be 0), e.g. --deposit 1 --reserve 0.5",
      );
    }
    let deposit: bigint;
    let reserve: bigint;
    try {
      deposit = parseEthAmount(values.deposit as string, "--deposit");
      reserve = parseEthAmount(values.reserve as string, "--reserve");
    } catch (err) {
      if (err instanceof AmountError) throw new UsageError(err.message);
      throw err;
    }
    if (deposit === 0n && reserve === 0n)
      throw new UsageError("--deposit and --reserve are both 0: nothing to send");
    try {
      const outcome = await runProtocolTx(values, {
        contract: "TicketBroker",
        method: "fundDepositAndReserve",
        args: [deposit, reserve],
        argsShown: [`deposit ${formatEther(deposit)} ETH`, `reserve ${formatEther(reserve)} ETH`],
        value: deposit + reserve,
      });
      if (outcome.sent) {
        const broker = contractAt(
          { contracts: { TicketBroker: outcome.contract } },
          "TicketBroker",
          outcome.chain.provider,
        );
        const info = await read<{ sender: { deposit: bigint }; reserve: { fundsRemaining: bigint } }>(
          broker,
          "getSenderInfo",
          outcome.from,
        );
        process.stdout.write(
          `${outcome.from} now has deposit ${formatEther(info.sender.deposit)} ETH, reserve ${formatEther(info.reserve.fundsRemaining)} ETH\n`,
        );
      }
      return outcome.sent || outcome.reason === "dry-run" ? 0 : 1;
    } catch (err) {
      if (err instanceof TxUsageError) throw new UsageError(err.message);
      if (err instanceof ChainActionError) {
        process.stderr.write(`livepeer-operator deposit: ${err.message}\n`);
        return 1;
      }
      throw err;
    }
  },
};
