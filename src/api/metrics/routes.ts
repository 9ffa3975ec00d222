// GET /metrics (Prometheus text format), at the root beside /healthz and /readyz, unauthenticated
// like them: counts and durations only, no tenant data.
import type { FastifyInstance } from "fastify";
import type { Registry } from "prom-client";

export async function metricsRoutes(app: FastifyInstance, opts: { registry: Registry }): Promise<void> {
  app.get("/metrics", async (_req, reply) => {
    const text = await opts.registry.metrics();
    return reply.header("content-type", opts.registry.contentType).send(text);
  });
}
