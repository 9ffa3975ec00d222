import { parseArgs } from "node:util";
import { getAddress, isAddress } from "ethers";
import { ChainActionError, connectChain, locateContract } from "../../devnet/chain-connection.ts";
import { contractAt } from "../../devnet/deploy.ts";
import { ServiceUriError, validateServiceURI } from "../../devnet/service-uri.ts";
import { read } from "../../devnet/transact.ts";
import {
  addressOfKeystore,
  resolveAccountFiles,
  resolveEthUrl,
  resolveLocation,
  runProtocolTx,
  TX_OPTIONS,
  TX_OPTIONS_USAGE,
  type TxOptionValues,
  TxUsageError,
} from "../../devnet/tx-command.ts";
import { type Command, UsageError } from "../command.ts";

const usage = `Usage: livepeer-operator service-uri set <uri> [options]
       livepeer-operator service-uri get [--address ADDRESS | --account NAME | --keystore PATH] [options]

  set <uri>   register the orchestrator's service URI on chain (ServiceRegistry.setServiceURI),
              what node_cli's service URI update does; <uri> is https://<host>:<port>, where
              gateways reach the orchestrator. Shows the transaction and asks before sending.
  get         print the service URI registered for an address (exit 1 when none)

  --address ADDRESS      get: the orchestrator's address (instead of an account)

${TX_OPTIONS_USAGE}

Example: livepeer-operator service-uri set https://10.0.0.5:8935 --account orchestrator-0`;

async function get(values: TxOptionValues & { address?: string }): Promise<number> {
  let address: string;
  if (values.address) {
    if (!isAddress(values.address)) throw new UsageError(`--address '${values.address}' is not an address`);
    address = getAddress(values.address);
  } else {
    address = addressOfKeystore(resolveAccountFiles(values, false));
  }
  const chain = await connectChain(resolveEthUrl(values));
  const located = await locateContract(chain, resolveLocation(values), "ServiceRegistry");
  const registry = contractAt({ contracts: { ServiceRegistry: located } }, "ServiceRegistry", chain.provider);
  const uri = await read<string>(registry, "getServiceURI", address);
  if (!uri) {
    process.stderr.write(`${address} has no service URI on chain ${chain.chainId}\n`);
    return 1;
  }
  process.stdout.write(`${uri}\n`);
  return 0;
}

async function set(values: TxOptionValues, uriArg: string | undefined): Promise<number> {
  if (!uriArg) throw new UsageError("give the URI: service-uri set https://<host>:<port>");
  let uri: string;
  try {
    uri = validateServiceURI(uriArg);
  } catch (err) {
    if (err instanceof ServiceUriError) throw new UsageError(err.message);
    throw err;
  }
  const outcome = await runProtocolTx(values, {
    contract: "ServiceRegistry",
    method: "setServiceURI",
    args: [uri],
    argsShown: [JSON.stringify(uri)],
  });
  if (outcome.sent) {
    const registry = contractAt(
      { contracts: { ServiceRegistry: outcome.contract } },
      "ServiceRegistry",
      outcome.chain.provider,
    );
    process.stdout.write(
      `${outcome.from} now announces ${await read<string>(registry, "getServiceURI", outcome.from)}\n`,
    );
  }
  return outcome.sent || outcome.reason === "dry-run" ? 0 : 1;
}

export const command: Command = {
  name: "service-uri",
  summary: "Get or set an orchestrator's on-chain service URI.",
  usage,
  async run(args) {
    let parsed: { values: TxOptionValues & { address?: string }; positionals: string[] };
    try {
      parsed = parseArgs({
        args,
        allowPositionals: true,
        options: { ...TX_OPTIONS, address: { type: "string" } },
      });
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const [verb, uri, extra] = parsed.positionals;
    if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
    try {
      switch (verb) {
        case "get":
          if (uri !== undefined) throw new UsageError(`unexpected argument '${uri}'`);
          return await get(parsed.values);
        case "set":
          return await set(parsed.values, uri);
        default:
          throw new UsageError("expected 'get' or 'set <uri>'; see 'livepeer-operator service-uri --help'");
      }
    } catch (err) {
      if (err instanceof TxUsageError) throw new UsageError(err.message);
      if (err instanceof ChainActionError) {
        process.stderr.write(`livepeer-operator service-uri: ${err.message}\n`);
        return 1;
      }
      throw err;
    }
  },
};
