// A webhook's delivery log, in the shape the `livepeer` SDK parses (getLogs, getLog, resendLog):
// GET /webhook/{id}/log (newest first, paged like the list), GET /webhook/{id}/log/{logId},
// POST /webhook/{id}/log/{logId}/resend (a new attempt signed now; answers the new entry).
// Another tenant's webhook is a 404, as for the webhook itself.
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from "fastify";
import { principalOf } from "../auth/hook.ts";
import { apiLogOf, type DeliveryEngine } from "../delivery/index.ts";
import { notFound } from "../errors/http-error.ts";
import { encodeCursor } from "./cursor.ts";
import { parseLogQuery } from "./log-query.ts";
import { nextLink } from "./next-link.ts";
import type { WebhookService } from "./service.ts";

export interface LogRoutesOptions {
  service: WebhookService;
  engine: DeliveryEngine;
  guards: onRequestHookHandler[];
}

type LogParams = { id?: string; logId?: string };

function logMissing(logId: string): never {
  throw notFound(`log entry ${JSON.stringify(logId.slice(0, 100))} not found for this webhook`);
}

export async function logRoutes(app: FastifyInstance, opts: LogRoutesOptions): Promise<void> {
  if (!app.hasRequestDecorator("principal")) app.decorateRequest("principal", null);
  for (const guard of opts.guards) app.addHook("onRequest", guard);
  // The webhook as the caller may see it (404 otherwise): the log is as private as the webhook.
  const webhookOf = (req: FastifyRequest) =>
    opts.service.get(principalOf(req), (req.params as LogParams).id ?? "").id;

  app.get("/webhook/:id/log", async (req, reply) => {
    const id = webhookOf(req);
    const q = parseLogQuery(req.query as Record<string, unknown>);
    const [page, total] = await Promise.all([
      opts.engine.listLog(id, q.limit, q.after),
      q.count ? opts.engine.countLog(id) : undefined,
    ]);
    if (page.next) void reply.header("link", nextLink(req, encodeCursor(page.next)));
    if (total !== undefined) void reply.header("x-total-count", String(total));
    return page.items.map(apiLogOf);
  });

  app.get("/webhook/:id/log/:logId", async (req) => {
    const id = webhookOf(req);
    const logId = (req.params as LogParams).logId ?? "";
    const entry = await opts.engine.getLog(id, logId);
    return entry ? apiLogOf(entry) : logMissing(logId);
  });

  app.post("/webhook/:id/log/:logId/resend", async (req) => {
    const id = webhookOf(req);
    const logId = (req.params as LogParams).logId ?? "";
    const entry = await opts.engine.resend(id, logId);
    return entry ? apiLogOf(entry) : logMissing(logId);
  });
}
