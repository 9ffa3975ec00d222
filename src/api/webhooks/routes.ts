// The webhook routes (a fastify plugin registered under the API prefix). Every route runs the
// readiness gate, the bearer-token check and the per-token rate limit first.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from "fastify";
import { principalOf } from "../auth/hook.ts";
import { badRequest } from "../errors/http-error.ts";
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
    updateWebhook: (req) => service.update(principalOf(req), (req.params as IdParams).id ?? "", req.body),
    deleteWebhook: (req) => service.remove(principalOf(req), (req.params as IdParams).id ?? ""),
  };
}

const idNotProvided: Handler = async () => {
  throw badRequest("webhook id not provided: use /webhook/{id}");
};

export async function webhookRoutes(app: FastifyInstance, opts: WebhookRoutesOptions): Promise<void> {
  app.decorateRequest("principal", null);
  for (const guard of opts.guards) app.addHook("onRequest", guard);
  const byId = handlers(opts.service);
  for (const op of webhookOperations) {
    app.route({ method: op.method, url: op.path, handler: byId[op.operationId] });
  }
  // `PUT /webhook` and `DELETE /webhook` name no webhook: say so rather than 405.
  app.route({ method: ["PUT", "DELETE"], url: "/webhook", handler: idNotProvided });
}

/** Paths under the prefix and the methods they accept (for 405 answers). */
export function webhookPathMethods(): Array<{ pattern: RegExp; methods: string[] }> {
  return [
    { pattern: /^\/webhook\/?$/, methods: ["GET", "POST", "PUT", "DELETE"] },
    { pattern: /^\/webhook\/[^/]+$/, methods: ["GET", "PUT", "DELETE"] },
    { pattern: /^\/webhook\/[^/]+\/log\/?$/, methods: ["GET"] },
    { pattern: /^\/webhook\/[^/]+\/log\/[^/]+$/, methods: ["GET"] },
    { pattern: /^\/webhook\/[^/]+\/log\/[^/]+\/resend$/, methods: ["POST"] },
    { pattern: /^\/events\/?$/, methods: ["POST"] },
  ];
}
