// POST {prefix}/events: producers holding `events:write` hand in an event; it is matched against
// the tenant's Webhooks and answered 202 {id} once durably recorded (the same id twice is one
// event, so a producer retries safely).
import type { FastifyInstance, onRequestHookHandler } from "fastify";
import { EVENTS_WRITE_SCOPE } from "../auth/claims.ts";
import { principalOf } from "../auth/hook.ts";
import type { DeliveryEngine, SubscribedWebhook } from "../delivery/index.ts";
import { forbidden, serviceUnavailable } from "../errors/http-error.ts";
import { parseEventBody } from "./event-body.ts";

export interface EventRoutesOptions {
  engine: DeliveryEngine;
  /** The namespace's webhooks, as matching sees them (from the Webhook cache). */
  webhooks: () => Iterable<SubscribedWebhook>;
  guards: onRequestHookHandler[];
  now?: () => number;
}

export async function eventRoutes(app: FastifyInstance, opts: EventRoutesOptions): Promise<void> {
  if (!app.hasRequestDecorator("principal")) app.decorateRequest("principal", null);
  for (const guard of opts.guards) app.addHook("onRequest", guard);
  const now = opts.now ?? Date.now;
  app.post("/events", async (req, reply) => {
    const p = principalOf(req);
    if (!p.scopes.has(EVENTS_WRITE_SCOPE)) {
      throw forbidden(`publishing events needs a token with the '${EVENTS_WRITE_SCOPE}' scope`);
    }
    const event = parseEventBody(p, req.body, now());
    let id: string;
    try {
      id = (await opts.engine.enqueue(event, opts.webhooks())).id;
    } catch (err) {
      req.log.warn({ error: (err as Error).message }, "cannot record an event");
      throw serviceUnavailable(
        "the event could not be recorded (delivery store unavailable): retry with the same id",
        2,
      );
    }
    return reply.code(202).send({ id });
  });
}
