import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { loadTokenKeys, SECRET_ENV } from "../../api/auth/key-sources.ts";
import type { LogLevel } from "../../api/logging.ts";
import { DEFAULT_DELIVERY_EGRESS, parseDeliveryEgress } from "../../api/options/delivery-egress.ts";
import {
  DEFAULT_DELIVERY_STORE,
  POSTGRES_URL_ENV,
  parseDeliveryStore,
} from "../../api/options/delivery-store.ts";
import { parseDeliveryTuning } from "../../api/options/delivery-tuning.ts";
import { parseByteSize, parseListen, parseNonNegativeInt } from "../../api/options/parse.ts";
import { DEFAULT_NAMESPACE, startApiServer } from "../../api/server.ts";
import { type Command, UsageError } from "../command.ts";

const IN_CLUSTER =
  Boolean(process.env.KUBERNETES_SERVICE_HOST) && existsSync("/var/run/secrets/kubernetes.io");
const DEFAULT_LISTEN = IN_CLUSTER ? "0.0.0.0:3000" : "127.0.0.1:3000";
const DEFAULT_RATE_LIMIT = 600;

const usage = `Usage: livepeer-operator api [options]

The webhook API (compatible with the hosted service's webhook API and the \`livepeer\` SDK):
POST/GET {prefix}/webhook, GET/PUT/DELETE {prefix}/webhook/{id}, GET {prefix}/webhook/{id}/log[/{logId}],
POST {prefix}/webhook/{id}/log/{logId}/resend, POST {prefix}/events (events:write), {prefix}/openapi.json,
and /healthz, /readyz, /metrics. Webhooks are stored as Webhook resources (livepeer.org/v1alpha1)
in one namespace; their secrets in Secrets owned by them. Events are delivered signed, retried
and logged (--delivery-*). Runs until SIGINT/SIGTERM.

Options:
  --listen HOST:PORT        address to listen on (default ${DEFAULT_LISTEN}; 0.0.0.0:3000 in a pod)
  --prefix PATH             route prefix (default /api; the SDK's serverURL is http://HOST:PORT/api)
  --namespace NS            where Webhook resources live (default $POD_NAMESPACE or ${DEFAULT_NAMESPACE})
  --kubeconfig FILE         cluster to use (default $KUBECONFIG, in-cluster, ~/.kube/config)
  --jwt-secret-file FILE    HS256 secret for bearer tokens (or set ${SECRET_ENV}); >= 32 bytes
  --jwks-file FILE          public keys: a JWKS, one JWK, or a PEM public key
  --jwks-url URL            public keys fetched from a JWKS URL
  --jwt-issuer ISS          required 'iss' of tokens
  --jwt-audience AUD        required 'aud' of tokens (comma-separated for several)
  --allow-loopback-targets  accept webhook URLs on loopback/private addresses and deliver to
                            loopback (development only)
  --allow-cidr CIDR         an internal range deliveries may reach anyway (repeatable), e.g.
                            10.20.0.0/16; everything not public is refused otherwise
  --delivery-egress MODE    public (default: public addresses and the ranges allowed above) or
                            loopback-only (test runs: every address outside 127.0.0.0/8 and ::1
                            refused at connect time as well, no name but localhost looked up)
  --delivery-store STORE    sqlite:PATH (one replica; default ${DEFAULT_DELIVERY_STORE}) or postgres
                            (several replicas; connection string from $${POSTGRES_URL_ENV}
                            or --delivery-postgres-url-file, never on the command line)
  --delivery-postgres-url-file FILE  the PostgreSQL connection string (a mounted Secret)
  --delivery-timeout DUR    per attempt (default 10s); durations: 90, 90s, 30m, 12h, 7d
  --delivery-retry-first DUR, --delivery-retry-max DUR, --delivery-retry-for DUR
                            retry schedule: first delay (5s), doubling up to (1h), for (24h)
  --delivery-log-max-age DUR, --delivery-log-max-per-webhook N, --delivery-events-max-age DUR
                            retention: log entries (7d, 1000 per webhook); settled events and
                            the idempotency window of event ids (7d)
  --no-node-hooks           do not serve the nodes' hooks: gateways' discovery hook and remote
                            signers' auth webhook (they need list/watch on gateways.livepeer.org
                            and get/list/watch on remotesigners.livepeer.org in every namespace)
  --rate-limit N            requests per minute per token (default ${DEFAULT_RATE_LIMIT}; 0 = unlimited)
  --body-limit SIZE         largest request body (default 64k)
  --log-level LEVEL         debug, info, warn, error (default info)

Tokens: 'sub' = user id, optional 'projectId', 'scope' ("admin", "events:write"); 'exp' required.
Mint one for local use with 'livepeer-operator token --sub USER'.`;

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      allowNegative: true,
      options: {
        listen: { type: "string", default: DEFAULT_LISTEN },
        prefix: { type: "string", default: "/api" },
        namespace: { type: "string" },
        kubeconfig: { type: "string" },
        "jwt-secret-file": { type: "string" },
        "jwks-file": { type: "string" },
        "jwks-url": { type: "string" },
        "jwt-issuer": { type: "string" },
        "jwt-audience": { type: "string" },
        "allow-loopback-targets": { type: "boolean", default: false },
        "allow-cidr": { type: "string", multiple: true, default: [] },
        "delivery-egress": { type: "string", default: DEFAULT_DELIVERY_EGRESS },
        "delivery-store": { type: "string", default: DEFAULT_DELIVERY_STORE },
        "delivery-postgres-url-file": { type: "string" },
        "delivery-timeout": { type: "string" },
        "delivery-retry-first": { type: "string" },
        "delivery-retry-max": { type: "string" },
        "delivery-retry-for": { type: "string" },
        "delivery-log-max-age": { type: "string" },
        "delivery-log-max-per-webhook": { type: "string" },
        "delivery-events-max-age": { type: "string" },
        "node-hooks": { type: "boolean", default: true },
        "rate-limit": { type: "string", default: String(DEFAULT_RATE_LIMIT) },
        "body-limit": { type: "string", default: "64k" },
        "log-level": { type: "string", default: "info" },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${usage}`);
  }
}

const LOG_LEVELS = ["debug", "info", "warn", "error"];

export const command: Command = {
  name: "api",
  summary: "Serve the webhook API (livepeer SDK compatible) backed by Webhook resources.",
  usage,
  async run(args) {
    const v = parse(args);
    let options: Parameters<typeof startApiServer>[0];
    try {
      const listen = parseListen(v.listen!);
      const postgresFile = v["delivery-postgres-url-file"];
      const keys = loadTokenKeys({
        jwtSecretFile: v["jwt-secret-file"],
        jwksFile: v["jwks-file"],
        jwksUrl: v["jwks-url"],
      });
      if (!LOG_LEVELS.includes(v["log-level"]!))
        throw new Error(`--log-level must be one of ${LOG_LEVELS.join(", ")}`);
      const audience = v["jwt-audience"]
        ?.split(",")
        .map((a) => a.trim())
        .filter(Boolean);
      options = {
        host: listen.host,
        port: listen.port,
        prefix: v.prefix,
        namespace: v.namespace,
        kubeconfig: v.kubeconfig,
        jwtSecret: keys.secret,
        jwks: keys.jwks,
        jwksUrl: keys.jwksUrl,
        jwtIssuer: v["jwt-issuer"],
        jwtAudience: audience?.length ? audience : undefined,
        allowLoopbackTargets: v["allow-loopback-targets"],
        delivery: {
          store: parseDeliveryStore(v["delivery-store"]!, {
            env: process.env[POSTGRES_URL_ENV],
            file: postgresFile ? () => readFileSync(postgresFile, "utf8") : undefined,
          }),
          allowCidrs: v["allow-cidr"],
          egress: parseDeliveryEgress(v["delivery-egress"]!),
          ...parseDeliveryTuning({
            timeout: v["delivery-timeout"],
            retryFirst: v["delivery-retry-first"],
            retryMax: v["delivery-retry-max"],
            retryFor: v["delivery-retry-for"],
            logMaxAge: v["delivery-log-max-age"],
            logMaxPerWebhook: v["delivery-log-max-per-webhook"],
            eventsMaxAge: v["delivery-events-max-age"],
          }),
        },
        nodeHooks: v["node-hooks"],
        rateLimitPerMinute: parseNonNegativeInt(v["rate-limit"]!, "--rate-limit"),
        bodyLimit: parseByteSize(v["body-limit"]!, "--body-limit"),
        logLevel: v["log-level"] as LogLevel,
      };
      if (!keys.secret && !keys.jwks && !keys.jwksUrl) {
        throw new Error(
          `no token keys: pass --jwt-secret-file, --jwks-file or --jwks-url, or set ${SECRET_ENV}`,
        );
      }
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    if (options.allowLoopbackTargets) {
      process.stderr.write(
        "api: --allow-loopback-targets is on: webhook URLs may point at this machine (development only)\n",
      );
    }
    if (options.delivery?.egress === "loopback-only") {
      process.stderr.write(
        "api: --delivery-egress loopback-only: deliveries reach 127.0.0.0/8 and ::1 only\n",
      );
    }
    const server = await startApiServer(options);
    process.stderr.write(
      `api: serving ${server.url} (SDK serverURL), namespace ${options.namespace || process.env.POD_NAMESPACE || DEFAULT_NAMESPACE}\n`,
    );
    await new Promise<void>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    await server.close();
    return 0;
  },
};
