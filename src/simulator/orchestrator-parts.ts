// What an orchestrator's service port answers with, put together from its flags: its address (the
// zero address off chain, as core/orchestrator.go Address), auth tokens, the rendition store, and
// on chain ticket parameters read from the chain its flags name and Ping signatures by its account.
import { getBytes } from "ethers";
import { AuthTokens } from "./auth-tokens.ts";
import type { SimulatedEthClient } from "./chain-client.ts";
import type { GlogLevel } from "./glog.ts";
import type { NodeModel } from "./node-model.ts";
import type { OrchestratorParts } from "./orchestrator-routes.ts";
import { RenditionStore } from "./rendition-store.ts";
import type { SimulatorState } from "./state.ts";
import { TicketParamsSource } from "./ticket-params.ts";

/** starter.go redeemGasL1 / redeemGasL2 (Arbitrum). */
const REDEEM_GAS_L1 = 350_000n;
const REDEEM_GAS_L2 = 1_200_000n;

type Log = (level: GlogLevel, where: string, message: string) => void;

export function orchestratorParts(
  node: NodeModel,
  state: SimulatorState,
  version: string,
  eth: SimulatedEthClient | undefined,
  log: Log,
): OrchestratorParts & { sign?: (value: Uint8Array) => Promise<Buffer> } {
  let address: Promise<Buffer> | undefined;
  const addressOf = (): Promise<Buffer> => {
    if (!eth) return Promise.resolve(Buffer.alloc(20));
    const flag = node.flags.ethAcctAddr;
    if (flag && /^(0x)?[0-9a-fA-F]{40}$/.test(flag)) {
      return Promise.resolve(Buffer.from(flag.replace(/^0x/, ""), "hex"));
    }
    // The keystore's account (unlocked on first use); the zero address while it cannot be read.
    address ??= eth.address().then((a) => Buffer.from(getBytes(a)));
    return address.catch(() => {
      address = undefined;
      return Buffer.alloc(20);
    });
  };
  let ticketErrorLogged = false;
  const tickets = eth
    ? new TicketParamsSource(eth, {
        recipient: addressOf,
        ev: wei(node.flags.ticketEV, 8_000_000_000n),
        maxFaceValue: wei(node.flags.maxFaceValue, 0n),
        redeemGas: /arbitrum/i.test(node.network) ? REDEEM_GAS_L2 : REDEEM_GAS_L1,
      })
    : undefined;
  return {
    info: {
      node,
      state,
      version,
      address: addressOf,
      ...(tickets ? { tickets } : {}),
      onTicketError: (err) => {
        if (ticketErrorLogged) return;
        ticketErrorLogged = true;
        log(
          "E",
          "simulator.go:31",
          `Simulated: ticket parameters left out of OrchestratorInfo: the chain did not answer (${(err as Error).message.slice(0, 200)})`,
        );
      },
    },
    tokens: new AuthTokens(),
    renditions: new RenditionStore(),
    ...(eth ? { sign: (value: Uint8Array) => eth.sign(value) } : {}),
  };
}

function wei(flag: string | undefined, fallback: bigint): bigint {
  return flag && /^\d+$/.test(flag) ? BigInt(flag) : fallback;
}
