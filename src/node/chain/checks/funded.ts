// Funded (gateways): a gateway pays orchestrators with tickets backed by its TicketBroker deposit
// and reserve; with either at 0, or with an unlock about to end, it stops routing streams without
// an error to anyone (the spec's silent behaviour), so those are error findings. A wallet below the gas threshold is a warning:
// it still pays tickets from the deposit, but cannot top the deposit up.
import { type CheckResult, chainFinding, ethText, notRead } from "../chain-finding.ts";
import type { NodeChainFacts } from "../facts.ts";
import { lowBalance } from "./balance.ts";

export interface FundingInput {
  address: string;
  facts: NodeChainFacts;
  minBalanceWei: bigint;
}

export function funding(input: FundingInput): CheckResult {
  const { facts, address } = input;
  const g = facts.gateway;
  if (!g) return { condition: notRead(facts, "Funded"), findings: [] };
  const amounts = `deposit ${ethText(g.deposit)} ETH, reserve ${ethText(g.reserve)} ETH`;
  const empty = [g.deposit === 0n && "deposit", g.reserve === 0n && "reserve"].filter(
    (x): x is string => typeof x === "string",
  );
  if (empty.length > 0) {
    const message = `${address} has ${amounts}: with ${empty.join(" and ")} at 0 the gateway stops paying orchestrators, so streams are not transcoded and nobody is told; fund it: livepeer-operator deposit --deposit <ETH> --reserve <ETH> (or livepeer_cli option 11)`;
    return unfunded(g.deposit === 0n ? "NoDeposit" : "NoReserve", message);
  }
  const unlock = unlockState(g.withdrawRound, facts.round?.current);
  if (unlock === "stops") {
    return unfunded(
      "DepositUnlocking",
      `${address} has ${amounts}, but unlocked them (withdrawable from round ${g.withdrawRound}): from the round before that the gateway and orchestrators refuse its tickets ("set to unlock soon"); fund the deposit or reserve again, or cancel the unlock, to keep paying`,
    );
  }
  const note =
    unlock === "pending" ? ` (an unlock is in progress: payments stop in round ${g.withdrawRound - 1n})` : "";
  const low = lowBalance(address, facts.balanceWei, input.minBalanceWei);
  if (low) {
    return {
      condition: {
        type: "Funded",
        status: "False",
        reason: "LowBalance",
        message: `${amounts}${note}, but ${low.message}`,
        severity: "warning",
      },
      findings: [low],
    };
  }
  const wallet = facts.balanceWei === undefined ? "" : `, wallet ${ethText(facts.balanceWei)} ETH`;
  return {
    condition: {
      type: "Funded",
      status: "True",
      reason: "DepositAndReserve",
      message: `${amounts}${wallet}${note}`,
    },
    findings: [],
  };
}

function unfunded(reason: string, message: string): CheckResult {
  return {
    condition: { type: "Funded", status: "False", reason, message, severity: "error" },
    findings: [chainFinding("GatewayUnfunded", message)],
  };
}

/**
 * go-livepeer refuses a sender whose withdraw round is at most the next round (pm/sender.go
 * validateSender): its tickets would not be redeemable in time.
 */
function unlockState(withdrawRound: bigint, current: bigint | undefined): "none" | "pending" | "stops" {
  if (withdrawRound === 0n) return "none";
  if (current !== undefined && withdrawRound <= current + 1n) return "stops";
  return "pending";
}
