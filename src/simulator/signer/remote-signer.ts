// A node in -remoteSigner mode (server/remote_signer.go, cmd/livepeer/starter/starter.go): on chain
// only, it holds the account's key (the keystore, unlocked at start) and serves on -httpAddr
// (default 127.0.0.1:8935, plain HTTP) POST /sign-orchestrator-info, POST /generate-live-payment
// and, with -remoteDiscovery, GET /discover-orchestrators; its CLI port (default 127.0.0.1:3935)
// answers /status and /fundDepositAndReserve (the deposit that pays is this account's). It refuses
// to start off chain, and on a public -httpAddr without -remoteSignerWebhookUrl unless
// -remoteSignerAllowNoAuth (0.9.0), with the node's words and exit code 2.
import type { Server } from "node:http";
import type { Wallet } from "ethers";
import { findKeystoreFile, unlockKeystore } from "../../devnet/keystore.ts";
import { defaultAddr, formatHostPort, type HostPort } from "../../node/config/addresses.ts";
import type { NodeFlags } from "../../node/config/flag-table.ts";
import { OFFCHAIN } from "../../node/config/networks.ts";
import { parseDecimal, type Rational, rational } from "../../node/pricing/rational.ts";
import { passwordOf, simulatedEthClient } from "../chain-client.ts";
import { fundDepositAndReserve } from "../cli-chain-routes.ts";
import { redactedUrl } from "../gateway/auth-webhook.ts";
import { OrchestratorConnections } from "../gateway/orchestrator-connections.ts";
import { staticPool, WebhookPool } from "../gateway/orchestrator-pool.ts";
import type { GlogLevel } from "../glog.ts";
import { closeServer, formOf, type Handler, listen, nodeServer, sendJson } from "../http-server.ts";
import { SimulatorState } from "../state.ts";
import { goRequestHeaders, parseHeaderMap } from "./auth-webhook.ts";
import { apiError, generateLivePayment, type SenderChainFacts, type SignerLimits } from "./live-payment.ts";
import { RemoteDiscovery } from "./remote-discovery.ts";
import { orchestratorInfoSignature } from "./signatures.ts";

type Log = (level: GlogLevel, where: string, message: string) => void;

/** starter.go RemoteSignerCliPort, OrchestratorRpcPort. */
const SIGNER_CLI_PORT = 3935;
const SIGNER_HTTP_PORT = 8935;
const LOOPBACK = /^(127(\.\d{1,3}){3}|::1|localhost)$/;
/** How long chain facts about the signer's own account are reused. */
const CHAIN_CACHE_MS = 5_000;

export class SignerStartError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number) {
    super(message);
    this.name = "SignerStartError";
    this.exitCode = exitCode;
  }
}

export interface RemoteSignerOptions {
  flags: NodeFlags;
  log: Log;
  /** Where to bind (the simulator's loopback choice for each flag address). */
  hostFor: (hp: HostPort) => string;
  version: string;
  /** -liveAICapReportInterval in ms (tests: shorter). */
  discoveryIntervalMs?: number;
}

export interface RunningSigner {
  address: string;
  urls: { cli: string; http: string };
  stop(): Promise<void>;
}

/** The start refusals, in the node's order and words (exit code 2: starter.go exit()). */
export function signerStartRefusal(flags: NodeFlags): string | undefined {
  if ((flags.network ?? OFFCHAIN) === OFFCHAIN) return "Remote signer mode requires on-chain network";
  const http = formatHostPort(defaultAddr(flags.httpAddr ?? "", "127.0.0.1", SIGNER_HTTP_PORT));
  const host = new URL(`https://${http}`).hostname.replace(/^\[(.*)\]$/, "$1");
  if (!flags.remoteSignerWebhookUrl && !LOOPBACK.test(host) && !flags.remoteSignerAllowNoAuth) {
    return `Refusing to start: remote signer on public -httpAddr ${http} with no -remoteSignerWebhookUrl signs payments from this node's deposit for any caller. Set the webhook, or pass -remoteSignerAllowNoAuth to override.`;
  }
  return undefined;
}

/** -maxPricePerUnit / -pixelsPerUnit as the signer's configured maximum (none when 0 or unset). */
export function configuredMaxPrice(flags: NodeFlags): Rational | undefined {
  const price = parseDecimal(flags.maxPricePerUnit ?? "0");
  const pixels = BigInt(/^\d+$/.test(flags.pixelsPerUnit ?? "1") ? (flags.pixelsPerUnit ?? "1") : "1");
  if (!price || price.num === 0n || pixels === 0n) return undefined;
  return rational(price.num, price.den * pixels);
}

export function signerLimits(flags: NodeFlags): SignerLimits {
  const maxPrice = configuredMaxPrice(flags);
  return {
    maxTicketEV: parseDecimal(flags.maxTicketEV ?? "3000000000000") ?? rational(3_000_000_000_000n),
    maxTotalEV: parseDecimal(flags.maxTotalEV ?? "20000000000000") ?? rational(20_000_000_000_000n),
    depositMultiplier: BigInt(flags.depositMultiplier ?? 1) || 1n,
    ...(maxPrice ? { maxPrice } : {}),
  };
}

export async function startRemoteSigner(o: RemoteSignerOptions): Promise<RunningSigner> {
  const { flags, log } = o;
  const refusal = signerStartRefusal(flags);
  if (refusal && (flags.network ?? OFFCHAIN) === OFFCHAIN) {
    log("E", "starter.go:727", refusal);
    throw new SignerStartError(refusal, 2);
  }
  const eth = simulatedEthClient(flags);
  // The key is unlocked at start; the chain is read when a payment needs it (as the simulator's
  // other roles, a signer whose chain is down still starts).
  let wallet: Wallet;
  try {
    if (!flags.ethKeystorePath)
      throw new Error("no -ethKeystorePath: the signer has no account to sign with");
    wallet = await unlockKeystore(findKeystoreFile(flags.ethKeystorePath), passwordOf(flags.ethPassword));
  } catch (err) {
    const message = (err as Error).message;
    log("F", "starter.go:826", message);
    throw new SignerStartError(message, 1);
  }
  log("I", "starter.go:598", `***Livepeer is running on the ${flags.network} network***`);
  log(
    "I",
    "simulator.go:40",
    `Simulated: remote signer for ${wallet.address}: chain calls go to -ethUrl only when asked (TicketBroker.getSenderInfo, RoundsManager.currentRound and the head block for each payment, TicketBroker.fundDepositAndReserve on /fundDepositAndReserve); signatures are real (the keystore's key)`,
  );
  let webhook: { url: URL; headers: Record<string, string> } | undefined;
  if (flags.remoteSignerWebhookUrl) {
    let url: URL;
    try {
      url = new URL(flags.remoteSignerWebhookUrl);
      if (!/^https?:$/.test(url.protocol)) throw new Error(`invalid URL scheme ${url.protocol}`);
    } catch (err) {
      const message = `Error setting remote signer webhook URL ${(err as Error).message}`;
      log("F", "starter.go:1631", message);
      throw new SignerStartError(message, 1);
    }
    log("I", "starter.go:1633", `Using remote signer webhook URL ${redactedUrl(url.toString())}`);
    webhook = { url, headers: parseHeaderMap(flags.remoteSignerWebhookHeaders) };
  }

  // The pool the discovery polls: -orchWebhookUrl, else -orchAddr.
  const connections = new OrchestratorConnections(undefined, async () => ({
    address: Buffer.from(wallet.address.slice(2), "hex"),
    sig: orchestratorInfoSignature(wallet),
  }));
  const orchAddrs = (flags.orchAddr ?? "")
    .split(",")
    .map((a) => a.trim())
    .filter(Boolean)
    .map((a) => (/^https?:\/\//.test(a) ? a : `https://${a.includes(":") ? a : `${a}:8935`}`));
  let pool: ConstructorParameters<typeof RemoteDiscovery>[0]["pool"] | undefined;
  if (flags.orchWebhookUrl) {
    log("I", "starter.go:1946", `Using orchestrator webhook URL ${redactedUrl(flags.orchWebhookUrl)}`);
    pool = new WebhookPool(new URL(flags.orchWebhookUrl), 60_000, log);
  } else if (orchAddrs.length > 0) {
    pool = staticPool(orchAddrs);
  }
  let discovery: RemoteDiscovery | undefined;
  if (flags.remoteDiscovery) {
    if (!pool) {
      log(
        "W",
        "simulator.go:41",
        "Simulated: -remoteDiscovery without -orchAddr or -orchWebhookUrl: the node polls the orchestrators registered on chain; the simulator does not, so /discover-orchestrators stays 503 (cache empty)",
      );
    }
    discovery = new RemoteDiscovery({
      pool: pool ?? staticPool([]),
      connections,
      maxPrice: configuredMaxPrice(flags),
      intervalMs: o.discoveryIntervalMs ?? durationMs(flags.liveAICapReportInterval, 25 * 60_000),
      log,
    });
  }

  const cliHp = defaultAddr(flags.cliAddr ?? "", "127.0.0.1", SIGNER_CLI_PORT);
  const httpHp = defaultAddr(flags.httpAddr ?? "", "127.0.0.1", SIGNER_HTTP_PORT);
  const state = new SimulatorState({ sessionLimit: 0, pricePerUnit: "0", pixelsPerUnit: "1", gpuIds: [] });
  const onError = (err: unknown) => log("E", "simulator.go:4", `simulator error: ${(err as Error).message}`);
  const servers: Server[] = [];
  const cliServer = nodeServer(cliRoutes(eth, o.version), state, onError);
  servers.push(cliServer);
  const closeAll = () => Promise.all(servers.map((s) => closeServer(s)));
  let cli: string;
  try {
    const a = await listen(cliServer, o.hostFor(cliHp), cliHp.port);
    cli = formatHostPort({ host: a.address, port: a.port });
  } catch (err) {
    await closeAll();
    throw new SignerStartError((err as Error).message, 1);
  }
  log("I", "webserver.go:22", `CLI server listening on ${cli}`);

  if (refusal) {
    log("E", "starter.go:2012", refusal);
    await closeAll();
    throw new SignerStartError(refusal, 2);
  }
  if (!webhook) {
    log(
      "W",
      "starter.go:2016",
      "WARNING: remote signer has no webhook auth. /generate-live-payment is UNAUTHENTICATED and signs payments from this node's deposit. Set -remoteSignerWebhookUrl.",
    );
  }
  const httpShown = formatHostPort(httpHp);
  log("I", "starter.go:2020", `Starting remote signer server on ${httpShown}`);
  const chain = senderFacts(eth, wallet.address);
  const limits = signerLimits(flags);
  const routes: Record<string, Handler> = {
    "/sign-orchestrator-info": async (req, res) => {
      if (req.method !== "POST") return methodNotAllowed(res);
      for await (const _ of req) {
        // the body is not read by the node
      }
      const requestId = Buffer.from(crypto.getRandomValues(new Uint8Array(4))).toString("hex");
      log("I", "remote_signer.go:44", `request_id=${requestId} Orch info signature request ip=${ipOf(req)}`);
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(
        `${JSON.stringify({ address: wallet.address, signature: `0x${orchestratorInfoSignature(wallet).toString("hex")}` })}\n`,
      );
    },
    "/generate-live-payment": async (req, res) => {
      if (req.method !== "POST") return methodNotAllowed(res);
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const answer = await generateLivePayment(
        { body: Buffer.concat(chunks), headers: goRequestHeaders(req.rawHeaders), ip: ipOf(req) },
        { wallet, chain, limits, ...(webhook ? { webhook } : {}), log },
      );
      res.writeHead(answer.status, { "Content-Type": "application/json", ...answer.headers });
      res.end(`${JSON.stringify(answer.json)}\n`);
    },
  };
  if (discovery) {
    routes["/discover-orchestrators"] = async (req, res, url) => {
      if (req.method !== "GET") return methodNotAllowed(res);
      const requestId = Buffer.from(crypto.getRandomValues(new Uint8Array(4))).toString("hex");
      log("I", "remote_signer.go:842", `request_id=${requestId} Get orchestrators request ip=${ipOf(req)}`);
      const list = discovery.orchestrators(url.searchParams.getAll("caps"));
      if (!list) {
        log("E", "handlers.go:1718", `request_id=${requestId} Error with API code=503 err=cache empty`);
        const a = apiError(503, "cache empty");
        res.writeHead(a.status, { "Content-Type": "application/json" });
        res.end(`${JSON.stringify(a.json)}\n`);
        return;
      }
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(`${JSON.stringify(list)}\n`);
    };
  }
  const httpServer = nodeServer(routes, state, onError);
  servers.push(httpServer);
  let http: string;
  try {
    const a = await listen(httpServer, o.hostFor(httpHp), httpHp.port);
    http = formatHostPort({ host: a.address, port: a.port });
  } catch (err) {
    log(
      "E",
      "starter.go:2022",
      `Error starting remote signer server: err=${JSON.stringify((err as Error).message)}`,
    );
    await closeAll();
    throw new SignerStartError((err as Error).message, 2);
  }
  log("I", "remote_signer.go:98", `Starting Remote Signer server on ${httpShown}`);
  log("I", "starter.go:2135", `Livepeer Node version: ${o.version}`);
  discovery?.start();
  return {
    address: wallet.address,
    urls: { cli: `http://${cli}`, http: `http://${http}` },
    stop: async () => {
      discovery?.stop();
      connections.closeAll();
      await closeAll();
    },
  };
}

function cliRoutes(eth: ReturnType<typeof simulatedEthClient>, version: string): Record<string, Handler> {
  return {
    "/status": (_req, res) => sendJson(res, { Version: version, Manifests: {}, OrchestratorPool: [] }),
    "/fundDepositAndReserve": async (req, res, url) => {
      const a = await fundDepositAndReserve({ eth }, await formOf(req, url));
      res.writeHead(a.status, { "Content-Type": "text/plain; charset=utf-8" });
      res.end(a.status === 200 ? a.text : `${a.text}\n`);
    },
  };
}

/** The signer's own account on chain, read when a payment needs it (reused for 5 s). */
function senderFacts(
  eth: ReturnType<typeof simulatedEthClient>,
  address: string,
): () => Promise<SenderChainFacts> {
  let cached: { at: number; value: Promise<SenderChainFacts> } | undefined;
  return () => {
    if (cached && Date.now() - cached.at < CHAIN_CACHE_MS) return cached.value;
    const value = (async () => {
      const [info, round, head] = await Promise.all([
        eth.read<unknown[]>("TicketBroker", "getSenderInfo", [address]),
        eth.read<bigint>("RoundsManager", "currentRound"),
        eth.head(),
      ]);
      const sender = info[0] as unknown[];
      const reserve = info[1] as unknown[];
      return {
        deposit: BigInt(sender[0] as bigint),
        withdrawRound: BigInt(sender[1] as bigint),
        reserve: BigInt(reserve[0] as bigint),
        lastInitializedRound: round,
        lastSeenBlock: head.blockNumber,
      };
    })();
    cached = { at: Date.now(), value };
    value.catch(() => {
      if (cached?.value === value) cached = undefined;
    });
    return value;
  };
}

function ipOf(req: { socket: { remoteAddress?: string | undefined } }): string {
  return req.socket.remoteAddress ?? "";
}

function methodNotAllowed(res: Parameters<Handler>[1]): void {
  res.writeHead(405, { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" });
  res.end("Method Not Allowed\n");
}

/** A Go duration flag ("25m", "30s", "1h") in ms. */
function durationMs(text: string | undefined, fallback: number): number {
  if (!text) return fallback;
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  let matched = "";
  for (const m of text.matchAll(re)) {
    total += Number(m[1]) * units[m[2]!]!;
    matched += m[0];
  }
  return matched === text && total > 0 ? total : fallback;
}
