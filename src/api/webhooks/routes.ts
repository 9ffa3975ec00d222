// The webhook routes (a fastify plugin registered under the API prefix). Every route runs the
// readiness gate, the bearer-token check and the per-token rate limit first.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from "fastify";
import { principalOf } from "../auth/hook.ts";
import type { RouteTableConfig } from "../routing/route-table.ts";
import { encodeCursor } from "./cursor.ts";
import { parseListQuery } from "./list-query.ts";
import { nextLink } from "./next-link.ts";
import { type OperationId, webhookOperations } from "./operations.ts";
import type { WebhookService } from "./service.ts";

export interface WebhookRoutesOptions {
  service: WebhookService;
  /** Run in order before every route: readiness, authentication, rate limit. */
  guards: onRequestHookHandler[];
}

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
type IdParams = { id?: string };

const idOf = (req: FastifyRequest): string => (req.params as IdParams).id ?? "";

function handlers(service: WebhookService): Record<OperationId, Handler> {
  return {
    createWebhook: (req) => service.create(principalOf(req), req.body),
    getWebhooks: async (req, reply) => {
      const query = parseListQuery(req.query as Record<string, unknown>);
      const page = service.list(principalOf(req), query);
      if (page.next) void reply.header("link", nextLink(req, encodeCursor(page.next)));
      if (query.count) void reply.header("x-total-count", String(page.total));
      return page.items;
    },
    getWebhook: async (req) => service.get(principalOf(req), (req.params as IdParams).id ?? ""),
    updateWebhook: (req, reply) =>
      idOf(req) ? service.update(principalOf(req), idOf(req), req.body) : idNotProvided(req, reply),
    deleteWebhook: (req, reply) =>
      idOf(req) ? service.remove(principalOf(req), idOf(req)) : idNotProvided(req, reply),
  };
}

// `PUT /webhook` and `DELETE /webhook` name no webhook: 405 (the path takes GET, HEAD and POST), with the
// spec's "id not provided" message so a person reading the body knows the fix.
const idNotProvided: Handler = async (req, reply) => {
  void reply.code(405).header("allow", "GET, HEAD, POST");
  return {
    errors: [
      `webhook id not provided: ${req.method} needs /webhook/{id} (this path takes GET, HEAD and POST)`,
    ],
  };
};

export async function webhookRoutes(app: FastifyInstance, opts: WebhookRoutesOptions): Promise<void> {
  app.decorateRequest("principal", null);
  for (const guard of opts.guards) app.addHook("onRequest", guard);
  const byId = handlers(opts.service);
  for (const op of webhookOperations) {
    app.route({ method: op.method, url: op.path, handler: byId[op.operationId] });
  }
  const config: RouteTableConfig = { answersMethodNotAllowed: true };
  app.route({ method: ["PUT", "DELETE"], url: "/webhook", handler: idNotProvided, config });
}
