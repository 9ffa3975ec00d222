// Probes, outside the API prefix and unauthenticated: /healthz fails only when the webhook
// cache is dead (the pod should be restarted); /readyz passes once the cache has synced, and the
// node hooks' caches too when they are served (a hook answers 503 until its cache has synced).
import type { FastifyInstance } from "fastify";
import type { InformerHealth } from "../../kube/informer.ts";

export interface HealthSource {
  synced(): boolean;
  health(): InformerHealth;
}

export interface HealthRoutesOptions {
  cache: HealthSource;
  /** Other caches a route needs, by what they hold ("RemoteSigner"). */
  alsoSynced?: readonly { holds: string; synced(): boolean }[];
}

export async function healthRoutes(app: FastifyInstance, opts: HealthRoutesOptions): Promise<void> {
  app.get("/healthz", async (_req, reply) => {
    const h = opts.cache.health();
    if (h.dead) {
      return reply.code(503).send({
        errors: [`the webhook cache has stopped following the cluster: ${h.lastError ?? "unknown error"}`],
      });
    }
    return { status: "ok" };
  });
  app.get("/readyz", async (_req, reply) => {
    if (!opts.cache.synced()) {
      const why = opts.cache.health().lastError;
      return reply
        .code(503)
        .send({ errors: [`the webhook cache has not synced with the cluster yet${why ? `: ${why}` : ""}`] });
    }
    const behind = (opts.alsoSynced ?? []).filter((c) => !c.synced()).map((c) => c.holds);
    if (behind.length) {
      return reply
        .code(503)
        .send({ errors: [`the API's ${behind.join(" and ")} cache has not synced with the cluster yet`] });
    }
    return { status: "ready" };
  });
}
