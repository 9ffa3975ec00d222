// The node hooks a gateway node calls (outside the API prefix, no bearer token: the node cannot
// send one): `GET .../orchestrators?token=` answers -orchWebhookUrl with the orchestrators the
// controller gave this gateway, in the node's format (`[{"address": "https://host:port"}]`). A
// wrong token and an unknown gateway get the same 404, so the hook tells nothing to a guesser.
import type { FastifyInstance } from "fastify";
import { NODE_HOOKS_PREFIX } from "../../schema/node-hooks.ts";
import { notFound, serviceUnavailable } from "../errors/http-error.ts";
import { discoveryAnswer, hookAllowed } from "./discovery.ts";
import type { GatewayHooksCache } from "./gateway-hooks-cache.ts";

export interface NodeHookRoutesOptions {
  gateways: GatewayHooksCache;
}

type GatewayParams = { namespace: string; name: string };

export async function nodeHookRoutes(app: FastifyInstance, opts: NodeHookRoutesOptions): Promise<void> {
  app.get<{ Params: GatewayParams; Querystring: { token?: string } }>(
    `${NODE_HOOKS_PREFIX}/gateways/:namespace/:name/orchestrators`,
    async (req) => {
      if (!opts.gateways.synced()) {
        throw serviceUnavailable(
          "the API is starting: its gateway cache has not synced with the cluster yet",
          2,
        );
      }
      const gateway = opts.gateways.get(req.params.namespace, req.params.name);
      if (!hookAllowed(gateway, req.query.token)) {
        throw notFound(
          `no gateway hook matches ${req.params.namespace}/${req.params.name} with this token: the Gateway was deleted, or its token changed and the node still has the old URL (its pod restarts with the new one)`,
        );
      }
      return discoveryAnswer(gateway!);
    },
  );
}
