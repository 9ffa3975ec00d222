// The `devnet` subcommands that act on a running devnet, for tests and demos: reward, drain,
// unbond, service-uri, round, pause, resume. Each prints what the chain says afterwards.
import {
  advanceRounds,
  callReward,
  changeServiceURI,
  DevnetActionError,
  drainDeposit,
  freezeChain,
  openDevnet,
  unbondAll,
} from "../devnet/actions.ts";
import { ServiceUriError } from "../devnet/service-uri.ts";
import { UsageError } from "./command.ts";

export const DEVNET_ACTIONS = [
  "reward",
  "drain",
  "unbond",
  "service-uri",
  "round",
  "pause",
  "resume",
] as const;
export type DevnetAction = (typeof DEVNET_ACTIONS)[number];

export const DEVNET_ACTIONS_USAGE = `  reward       the orchestrator (--account orchestrator-N) calls reward for the current round
  drain        empty the gateway's (--account gateway-N) deposit and reserve as the protocol
               allows: unlock, the unlock period passed (rounds jumped), withdraw
  unbond       the orchestrator (--account orchestrator-N) unbonds all its stake: it resigns
               and leaves the active set from the next round
  service-uri <uri>  the orchestrator (--account orchestrator-N) registers a new service URI
  round        jump to the start of the next round (--rounds N: N rounds on), initialized
  pause        freeze the chain process (SIGSTOP): the RPC port accepts but nothing answers
  resume       thaw it (SIGCONT)`;

export interface ActionInput {
  dir: string;
  account?: string;
  rounds?: string;
  argument?: string;
}

const out = (line: string) => process.stdout.write(`${line}\n`);

function needAccount(input: ActionInput, role: string): string {
  if (!input.account) throw new UsageError(`say which account: --account ${role}-0`);
  return input.account;
}

export async function runDevnetAction(action: DevnetAction, input: ActionInput): Promise<number> {
  if (action !== "service-uri" && input.argument !== undefined) {
    throw new UsageError(`unexpected argument '${input.argument}'`);
  }
  try {
    if (action === "pause" || action === "resume") {
      const pid = freezeChain(input.dir, action === "pause");
      out(
        `[devnet] chain (pid ${pid}) ${action === "pause" ? "paused: its RPC no longer answers" : "resumed"}`,
      );
      return 0;
    }
    const session = await openDevnet(input.dir);
    try {
      return await act(action, input, session);
    } finally {
      session.close();
    }
  } catch (err) {
    if (err instanceof ServiceUriError) throw new UsageError(err.message);
    if (err instanceof DevnetActionError) {
      process.stderr.write(`livepeer-operator devnet ${action}: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

async function act(
  action: Exclude<DevnetAction, "pause" | "resume">,
  input: ActionInput,
  session: Awaited<ReturnType<typeof openDevnet>>,
): Promise<number> {
  switch (action) {
    case "reward": {
      const r = await callReward(session, needAccount(input, "orchestrator"));
      out(
        `${r.address} called reward in round ${r.round}: last reward round ${r.lastRewardRound}, stake ${r.stake} LPT`,
      );
      return 0;
    }
    case "drain": {
      const r = await drainDeposit(session, needAccount(input, "gateway"));
      out(
        `${r.address} withdrew ${r.withdrawn} ETH (now in round ${r.round}): deposit ${r.deposit} ETH, reserve ${r.reserve} ETH`,
      );
      return 0;
    }
    case "unbond": {
      const r = await unbondAll(session, needAccount(input, "orchestrator"));
      out(
        `${r.address} unbonded ${r.unbonded} LPT: it leaves the active set in round ${r.deactivationRound}`,
      );
      return 0;
    }
    case "service-uri": {
      if (!input.argument)
        throw new UsageError(
          "give the URI: devnet service-uri https://<host>:<port> --account orchestrator-0",
        );
      const account = needAccount(input, "orchestrator");
      out(`${account} now announces ${await changeServiceURI(session, account, input.argument)}`);
      return 0;
    }
    case "round": {
      const count = input.rounds ?? "1";
      if (!/^[1-9]\d*$/.test(count))
        throw new UsageError(`--rounds '${count}' is not a whole number of rounds above 0`);
      out(`[devnet] round ${await advanceRounds(session, BigInt(count))} started and initialized`);
      return 0;
    }
  }
}
