// The fastify application: probes at the root, the webhook routes and openapi.json under the
// prefix, JSON errors everywhere. Built from its parts so the server, tests and the benchmark
// assemble the same app.

import Fastify, { type FastifyInstance, LogController, type onRequestHookHandler } from "fastify";
import type { Registry } from "prom-client";
import { authenticate } from "./auth/hook.ts";
import type { TokenVerifier } from "./auth/verifier.ts";
import type { DeliveryEngine, SubscribedWebhook } from "./delivery/index.ts";
import { serviceUnavailable } from "./errors/http-error.ts";
import { frameworkErrorHandler, installErrorHandling } from "./errors/plugin.ts";
import { eventRoutes } from "./events/routes.ts";
import { type HealthSource, healthRoutes } from "./health/routes.ts";
import { parseJsonBody } from "./json-body.ts";
import { type LogOptions, lazyChildLogger, loggerOptions, logResponses } from "./logging.ts";
import { metricsRoutes } from "./metrics/routes.ts";
import type { GatewayHooksCache } from "./node-hooks/gateway-hooks-cache.ts";
import { type NodeHookRoutesOptions, nodeHookRoutes } from "./node-hooks/routes.ts";
import { openApiDocument } from "./openapi/document.ts";
import { limitRate } from "./rate-limit/hook.ts";
import type { RateLimiter } from "./rate-limit/token-bucket.ts";
import { hasBodyBytes } from "./routing/body-bytes.ts";
import { RouteTable } from "./routing/route-table.ts";
import { type SignerAuthRoutesOptions, signerAuthRoutes } from "./signer-auth/routes.ts";
import { logRoutes } from "./webhooks/log-routes.ts";
import { webhookRoutes } from "./webhooks/routes.ts";
import type { WebhookService } from "./webhooks/service.ts";

export const DEFAULT_PREFIX = "/api";
export const DEFAULT_BODY_LIMIT = 64 * 1024;

export interface BaseOptions {
  /** "/api" (default), "" for none. */
  prefix: string;
  bodyLimit: number;
  log: LogOptions;
}

export interface ApiParts {
  verifier: TokenVerifier;
  rateLimiter?: RateLimiter | undefined;
  service: WebhookService;
  cache: HealthSource;
  /** Webhook delivery: the event intake and the webhooks' logs (absent: not served). */
  delivery?: { engine: DeliveryEngine; webhooks: () => Iterable<SubscribedWebhook> };
  /** Served at /metrics beside the probes (absent: not served). */
  metrics?: Registry;
  /** The gateway nodes' hooks, outside the prefix (absent: not served). */
  gateways?: GatewayHooksCache;
  /** The gateways' stream events (the auth and stream-events hooks; absent: not served). */
  streamEvents?: NodeHookRoutesOptions["streams"];
  /** Remote signers' auth webhook, outside the prefix (absent: not served). */
  signerAuth?: SignerAuthRoutesOptions;
}

/** "/api", "api/", "/" -> "/api", "/api", "". */
export function normalizePrefix(prefix: string): string {
  const trimmed = prefix.trim().replace(/^\/+|\/+$/g, "");
  if (trimmed && !/^[A-Za-z0-9._~\-/]+$/.test(trimmed)) {
    throw new Error(`prefix '${prefix}' may hold only letters, digits, '/', '.', '_', '~' and '-'`);
  }
  return trimmed ? `/${trimmed}` : "";
}

/** fastify with JSON-only bodies, JSON errors and response logging; no routes yet. */
export function createBaseApp(o: BaseOptions): FastifyInstance {
  normalizePrefix(o.prefix); // a prefix it cannot serve is refused before anything listens
  const app = Fastify({
    logger: loggerOptions(o.log),
    // One line per response comes from logResponses(); fastify's own pair per request is off.
    logController: new LogController({ disableRequestLogging: true }),
    // A request's child logger is made only if it logs (most do not).
    childLoggerFactory: lazyChildLogger,
    bodyLimit: o.bodyLimit,
    return503OnClosing: true,
    // Kubernetes names (the ids) have up to 253 characters.
    routerOptions: { maxParamLength: 253 },
    frameworkErrors: frameworkErrorHandler(o.bodyLimit),
  });
  // JSON only: text/plain would otherwise reach the routes as a string.
  app.removeContentTypeParser("text/plain");
  // Our JSON parser: its refusals name the key or the syntax error (json-body.ts).
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  // A request without body bytes has no body, whatever Content-Type it names (curl's usual header
  // on a bodiless POST): fastify would otherwise run the type's parser on nothing (400 or 415).
  // (Hooks on every request are callback-style: an async hook costs a promise and a microtask.)
  app.addHook("onRequest", (request, _reply, done) => {
    if (!hasBodyBytes(request.headers)) delete request.headers["content-type"];
    done();
  });
  const routes = new RouteTable();
  app.addHook("onRoute", (route) => routes.add(route));
  installErrorHandling(app, {
    bodyLimit: o.bodyLimit,
    allowedMethods: (path) => routes.allowedMethods(path),
  });
  logResponses(app);
  return app;
}

/** Probes and the node hooks at the root; openapi.json, the webhook, log and event routes under the prefix. */
export function mountApi(app: FastifyInstance, prefix: string, parts: ApiParts): void {
  const ready: onRequestHookHandler = (_request, _reply, done) => {
    if (!parts.cache.synced()) {
      throw serviceUnavailable(
        "the API is starting: its webhook cache has not synced with the cluster yet",
        2,
      );
    }
    done();
  };
  const guards: onRequestHookHandler[] = [ready, authenticate(parts.verifier)];
  if (parts.rateLimiter) guards.push(limitRate(parts.rateLimiter));

  const alsoSynced = [
    ...(parts.gateways ? [{ holds: "Gateway", synced: () => parts.gateways!.synced() }] : []),
    ...(parts.signerAuth
      ? [{ holds: "RemoteSigner", synced: () => parts.signerAuth!.signers.synced() }]
      : []),
  ];
  void app.register(healthRoutes, { cache: parts.cache, alsoSynced });
  if (parts.metrics) void app.register(metricsRoutes, { registry: parts.metrics });
  if (parts.gateways) {
    void app.register(nodeHookRoutes, { gateways: parts.gateways, streams: parts.streamEvents });
  }
  if (parts.signerAuth) void app.register(signerAuthRoutes, parts.signerAuth);
  const normalized = normalizePrefix(prefix);
  const document = openApiDocument(normalized);
  void app.register(
    async (api) => {
      api.get("/openapi.json", async () => document);
      await api.register(webhookRoutes, { service: parts.service, guards });
      if (parts.delivery) {
        const { engine, webhooks } = parts.delivery;
        await api.register(logRoutes, { service: parts.service, engine, guards });
        await api.register(eventRoutes, { engine, webhooks, guards });
      }
    },
    { prefix: normalized },
  );
}
