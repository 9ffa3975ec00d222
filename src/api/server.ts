// startApiServer: the API server on a cluster (the `api` command, the embedded default, tests):
// Kubernetes client with connection reuse, a preflight that explains a missing CRD or RBAC, the
// webhook cache, the fastify app; resolves once it listens and the cache has synced.
import type { KubeConfig } from "@kubernetes/client-node";
import type { JSONWebKeySet } from "jose";
import { KubeClient } from "../kube/kube-client.ts";
import { loadKubeConfig, PooledKubeConfig } from "../kube/kube-config.ts";
import { createBaseApp, DEFAULT_BODY_LIMIT, DEFAULT_PREFIX, mountApi, normalizePrefix } from "./app.ts";
import { TokenVerifier } from "./auth/verifier.ts";
import { sqliteSpendWriterFor } from "./delivery/store/sqlite-spend-writer.ts";
import { type DeliveryOptions, type DeliveryRuntime, openDelivery } from "./delivery-runtime.ts";
import { type LogLevel, runtimeLogger } from "./logging.ts";
import { GatewayHooksCache } from "./node-hooks/gateway-hooks-cache.ts";
import { OpenStreams } from "./node-hooks/open-streams.ts";
import { StreamEventRecorder } from "./node-hooks/stream-event-recorder.ts";
import { StreamStarts } from "./node-hooks/stream-starts.ts";
import { RateLimiter } from "./rate-limit/token-bucket.ts";
import { SignerAuthMetrics } from "./signer-auth/metrics.ts";
import { RemoteSignerCache } from "./signer-auth/signer-cache.ts";
import { SpendLedger } from "./signer-auth/spend-ledger.ts";
import { preflight, preflightNodeHooks } from "./store/preflight.ts";
import { WebhookCache } from "./store/webhook-cache.ts";
import { WebhookRepository } from "./store/webhook-repository.ts";
import { WebhookService } from "./webhooks/service.ts";

export const DEFAULT_NAMESPACE = "livepeer-system";
export const FIELD_MANAGER = "livepeer-operator-api";

export interface ApiServerOptions {
  /** Listen address; default 127.0.0.1:3000. Port 0 picks a free port. */
  host?: string;
  port?: number;
  /** Route prefix; default "/api". */
  prefix?: string;
  /** Where Webhook resources live; default $POD_NAMESPACE or livepeer-system. */
  namespace?: string;
  /** A kubeconfig path or a loaded KubeConfig; default KUBECONFIG / in-cluster / ~/.kube/config. */
  kubeconfig?: string | KubeConfig;
  /** HS256 secret (>= 32 bytes) ... */
  jwtSecret?: string | Uint8Array;
  /** ... and/or public keys (a JWKS document) or a JWKS URL. */
  jwks?: JSONWebKeySet;
  jwksUrl?: string;
  jwtIssuer?: string;
  jwtAudience?: string | string[];
  /** Development only: accept webhook URLs on loopback and private addresses, and deliver to loopback. */
  allowLoopbackTargets?: boolean;
  /** Webhook delivery: where deliveries and logs are kept and what they may reach. */
  delivery?: DeliveryOptions;
  /** Requests per minute per token; absent or 0 = unlimited. */
  rateLimitPerMinute?: number;
  /** Largest accepted body in bytes; default 64 KiB. */
  bodyLimit?: number;
  logLevel?: LogLevel;
  logStream?: { write(line: string): void };
  /**
   * Serve the nodes' hooks (discovery for Gateways that select Orchestrators, remote signers' auth
   * webhook) from caches of every Gateway and RemoteSigner in the cluster; default true. Needs
   * list/watch on gateways.livepeer.org and remotesigners.livepeer.org.
   */
  nodeHooks?: boolean;
  /** How long to wait for the first sync of the cache; default 30 s. */
  syncTimeoutMs?: number;
}

export interface RunningApiServer {
  /** Base URL including the prefix, e.g. http://127.0.0.1:3000/api (what SDKs take as serverURL). */
  url: string;
  host: string;
  port: number;
  close(): Promise<void>;
}

/** Always a pooled config (client-node would open a new TLS connection per request). */
function kubeConfigFrom(k: ApiServerOptions["kubeconfig"]): { kc: KubeConfig; owned?: PooledKubeConfig } {
  if (k instanceof PooledKubeConfig) return { kc: k };
  if (k && typeof k !== "string") {
    const pooled = new PooledKubeConfig();
    pooled.loadFromString(k.exportConfig());
    return { kc: pooled, owned: pooled };
  }
  const { kc } = loadKubeConfig({ kubeconfig: k });
  return { kc, owned: kc };
}

function baseUrl(host: string, port: number, prefix: string): string {
  const h = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  return `http://${h.includes(":") ? `[${h}]` : h}:${port}${prefix}`;
}

export async function startApiServer(opts: ApiServerOptions = {}): Promise<RunningApiServer> {
  const prefix = normalizePrefix(opts.prefix ?? DEFAULT_PREFIX);
  const namespace = opts.namespace || process.env.POD_NAMESPACE || DEFAULT_NAMESPACE;
  const bodyLimit = opts.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const secret =
    typeof opts.jwtSecret === "string" ? new TextEncoder().encode(opts.jwtSecret) : opts.jwtSecret;
  const verifier = new TokenVerifier({
    secret,
    jwks: opts.jwks,
    jwksUrl: opts.jwksUrl,
    issuer: opts.jwtIssuer,
    audience: opts.jwtAudience,
  });
  const { kc, owned } = kubeConfigFrom(opts.kubeconfig);
  const client = new KubeClient(kc);
  let delivery: DeliveryRuntime | undefined;
  let close: (() => Promise<void>) | undefined;
  try {
    await preflight(client, namespace);
    const nodeHooks = opts.nodeHooks ?? true;
    if (nodeHooks) await preflightNodeHooks(client);
    // The app's logger comes first so the informer and the store log through it.
    const app = createBaseApp({
      prefix,
      bodyLimit,
      log: { level: opts.logLevel ?? "info", stream: opts.logStream },
    });
    const log = runtimeLogger(app.log, "webhooks");
    const cache = new WebhookCache(client, namespace, log.child("cache"));
    const repo = new WebhookRepository({
      client,
      cache,
      fieldManager: FIELD_MANAGER,
      log: log.child("store"),
    });
    const service = new WebhookService({ repo, allowLoopbackTargets: opts.allowLoopbackTargets ?? false });
    const signers = nodeHooks ? new RemoteSignerCache(client, log.child("remote-signers")) : undefined;
    const gateways = nodeHooks
      ? new GatewayHooksCache(client, log.child("gateway-hooks"), signers)
      : undefined;
    delivery = await openDelivery({
      ...opts.delivery,
      client,
      cache,
      allowLoopback: opts.allowLoopbackTargets ?? false,
      log: runtimeLogger(app.log, "delivery"),
    });
    const running = { cache, delivery };
    // The spend the signers' auth hook decides on, from the delivery store (budgets hold across restarts).
    // On SQLite the writes run in a thread of their own (the API thread only hands batches over).
    const spendWriter = signers ? sqliteSpendWriterFor(delivery.engine.store) : undefined;
    const ledger = signers
      ? new SpendLedger(delivery.engine.store, {
          log: runtimeLogger(app.log, "signer-auth"),
          ...(spendWriter ? { write: (batch) => spendWriter.write(batch) } : {}),
        })
      : undefined;
    await ledger?.load();
    mountApi(app, prefix, {
      verifier,
      rateLimiter: opts.rateLimitPerMinute ? new RateLimiter(opts.rateLimitPerMinute) : undefined,
      service,
      cache,
      delivery: { engine: delivery.engine, webhooks: delivery.webhooks },
      metrics: delivery.metrics.registry,
      ...(gateways
        ? {
            gateways,
            streamEvents: {
              recorder: new StreamEventRecorder({
                engine: delivery.engine,
                webhooks: delivery.webhooks,
                registry: delivery.metrics.registry,
                log: log.child("stream-events"),
              }),
              open: new StreamStarts({
                local: new OpenStreams(),
                shared: delivery.engine.store,
                log: log.child("stream-starts"),
              }),
            },
          }
        : {}),
      ...(signers && ledger
        ? {
            signerAuth: {
              signers,
              verifier,
              ledger,
              metrics: new SignerAuthMetrics(delivery.metrics.registry),
            },
          }
        : {}),
    });
    cache.start();
    gateways?.start();
    signers?.start();
    close = async () => {
      await app.close();
      await ledger?.close();
      await spendWriter?.close();
      await running.delivery.close();
      await Promise.all([running.cache.stop(), gateways?.stop(), signers?.stop()]);
      await owned?.close();
    };
    try {
      await app.listen({ host: opts.host ?? "127.0.0.1", port: opts.port ?? 3000 });
      const timeout = AbortSignal.timeout(opts.syncTimeoutMs ?? 30_000);
      const synced =
        (await cache.waitForSync(timeout)) &&
        (gateways ? await gateways.waitForSync(timeout) : true) &&
        (signers ? await signers.waitForSync(timeout) : true);
      if (!synced) {
        throw new Error(
          `the webhook cache did not sync within ${(opts.syncTimeoutMs ?? 30_000) / 1000} s: ${cache.health().lastError ?? "no answer from the Kubernetes API"}`,
        );
      }
      // After the sync: an attempt resolves its webhook from the cache.
      running.delivery.start();
    } catch (err) {
      await close();
      throw err;
    }
    const address = app.server.address();
    const port = typeof address === "object" && address ? address.port : (opts.port ?? 3000);
    const host = opts.host ?? "127.0.0.1";
    app.log.info({ url: baseUrl(host, port, prefix), namespace }, "webhook API listening");
    return { url: baseUrl(host, port, prefix), host, port, close };
  } catch (err) {
    // Before close() exists nothing was started: release what was opened.
    if (!close) {
      await delivery?.close();
      await owned?.close();
    }
    throw err;
  }
}
