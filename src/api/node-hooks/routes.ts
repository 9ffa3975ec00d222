// The node hooks (outside the API prefix, no bearer token: the node cannot send one; a per-gateway
// token rides in the query string):
// - `GET .../orchestrators?token=` answers -orchWebhookUrl with the orchestrators the controller
//   gave this gateway, in the node's format (`[{"address": "https://host:port"}]`); repeated
//   `caps=<pipeline>/<model>` (the official SDK's discovery_url) keeps those serving one of them;
// - `POST .../auth?token=` answers -authWebhookUrl: always 200 with an empty body (accept, keep
//   the ingest URL's manifest id), fast, whatever happens to the event; records stream.started
//   when the token matches and the Gateway sends stream events;
// - `POST .../stream-events?token=` takes the controller's report of ended streams (from the
//   node's log) and records stream.idle; 204 once durable, 503 for the controller to retry.
// - `GET /node-hooks/v1/remote-signers/{ns}/{name}/orchestrators?token=` answers a RemoteSigner's
//   -orchWebhookUrl (its -remoteDiscovery feed) with the Orchestrators the controller offers it, in
//   the same format, checked against the signer's own token digest.
// A wrong token and an unknown gateway get the same 404 (the auth hook: the same 200), so the
// hooks tell nothing to a guesser.
import type { FastifyInstance } from "fastify";
import { NODE_HOOKS_PREFIX, StreamEndsReportSchema } from "../../schema/node-hooks.ts";
import { notFound, serviceUnavailable } from "../errors/http-error.ts";
import { parseOr422 } from "../errors/validation.ts";
import { capsOf, discoveryAnswer, hookAllowed } from "./discovery.ts";
import type { GatewayHooksCache } from "./gateway-hooks-cache.ts";
import type { StreamEventRecorder } from "./stream-event-recorder.ts";
import { idleEvent, ingestStreamOf, startedEvent, streamEventTenant } from "./stream-events.ts";
import type { StreamStarts } from "./stream-starts.ts";

export interface NodeHookRoutesOptions {
  gateways: Pick<GatewayHooksCache, "synced" | "get"> & Partial<Pick<GatewayHooksCache, "signer">>;
  /** Stream events (absent: the auth and stream-events hooks are not served). */
  streams?: { recorder: StreamEventRecorder; open: StreamStarts; now?: () => number } | undefined;
}

type GatewayParams = { namespace: string; name: string };
type HookRequest = { Params: GatewayParams; Querystring: { token?: string; caps?: string | string[] } };

const GATEWAY = `${NODE_HOOKS_PREFIX}/gateways/:namespace/:name`;
const SIGNER = `${NODE_HOOKS_PREFIX}/remote-signers/:namespace/:name`;

export async function nodeHookRoutes(app: FastifyInstance, opts: NodeHookRoutesOptions): Promise<void> {
  const allowedGateway = (p: GatewayParams, token: string | undefined) => {
    if (!opts.gateways.synced()) {
      throw serviceUnavailable(
        "the API is starting: its gateway cache has not synced with the cluster yet",
        2,
      );
    }
    const gateway = opts.gateways.get(p.namespace, p.name);
    if (!hookAllowed(gateway, token)) {
      throw notFound(
        `no gateway hook matches ${p.namespace}/${p.name} with this token: the Gateway was deleted, or its token changed and the node still has the old URL (its pod restarts with the new one)`,
      );
    }
    return gateway!;
  };

  app.get<HookRequest>(`${GATEWAY}/orchestrators`, async (req) =>
    discoveryAnswer(allowedGateway(req.params, req.query.token), capsOf(req.query.caps)),
  );

  const signer = opts.gateways.signer?.bind(opts.gateways);
  if (signer) {
    app.get<HookRequest>(`${SIGNER}/orchestrators`, async (req) => {
      const p = req.params;
      if (!opts.gateways.synced()) {
        throw serviceUnavailable(
          "the API is starting: its node-hooks cache has not synced with the cluster yet",
          2,
        );
      }
      const found = signer(p.namespace, p.name);
      if (!hookAllowed(found, req.query.token)) {
        throw notFound(
          `no remote signer hook matches ${p.namespace}/${p.name} with this token: the RemoteSigner was deleted, or its token changed and the node still has the old URL (its pods restart with the new one)`,
        );
      }
      return discoveryAnswer(found!);
    });
  }

  const streams = opts.streams;
  if (!streams) return;
  const now = streams.now ?? Date.now;

  app.post<HookRequest & { Body: unknown }>(`${GATEWAY}/auth`, async (req, reply) => {
    // The answer never depends on the event: a webhook must not stop a stream.
    const accept = () => reply.code(200).send();
    if (!opts.gateways.synced()) {
      req.log.warn(
        "stream.started not recorded: the gateway cache has not synced yet (the stream is accepted)",
      );
      return accept();
    }
    const gateway = opts.gateways.get(req.params.namespace, req.params.name);
    if (!gateway || !hookAllowed(gateway, req.query.token)) return accept();
    const tenant = streamEventTenant(gateway);
    const stream = ingestStreamOf((req.body as { url?: unknown } | undefined)?.url);
    if (!tenant || !stream) return accept();
    const startedAt = await streams.open.start(gateway.metadata?.uid ?? "", stream.streamId, now());
    await streams.recorder.record(startedEvent(gateway, tenant, stream, startedAt));
    return accept();
  });

  app.post<HookRequest & { Body: unknown }>(`${GATEWAY}/stream-events`, async (req, reply) => {
    const gateway = allowedGateway(req.params, req.query.token);
    const report = parseOr422(StreamEndsReportSchema, req.body, "body");
    const tenant = streamEventTenant(gateway);
    if (!tenant) return reply.code(204).send();
    const uid = gateway.metadata?.uid ?? "";
    for (const end of report.ends) streams.open.end(uid, end.externalManifestID);
    try {
      await streams.recorder.recordAll(report.ends.map((end) => idleEvent(gateway, tenant, end)));
    } catch (err) {
      req.log.warn({ error: (err as Error).message }, "cannot record stream.idle events");
      throw serviceUnavailable(
        "the stream ends could not be recorded (delivery store unavailable): send the same report again",
        2,
      );
    }
    return reply.code(204).send();
  });
}
