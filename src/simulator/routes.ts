import { z } from "zod";
import { decodeMessage, encodeMessage } from "../node/wire/messages.ts";
import { type SimAction, SimActionSchema } from "./actions.ts";
import { cliChainRoutes } from "./cli-chain-routes.ts";
import { cliPriceRoutes } from "./cli-price-routes.ts";
import { gatewayHttpRoutes } from "./gateway/http-routes.ts";
import { formOf, type Handler, sendJson, sendText } from "./http-server.ts";
import { orchestratorInfoMessage } from "./orchestrator-info-message.ts";
import { orchestratorSegmentRoutes } from "./orchestrator-routes.ts";
import { networkCapabilitiesBody, statusBody } from "./responses.ts";
import type { RouteContext } from "./route-context.ts";

const status =
  (c: RouteContext): Handler =>
  async (_req, res) =>
    sendJson(res, {
      ...statusBody(c.node, c.state, c.version),
      ...(c.gateway ? await c.gateway.statusFields() : {}),
    });

export function cliRoutes(c: RouteContext): Record<string, Handler> {
  return {
    "/status": status(c),
    "/getNetworkCapabilities": async (_req, res) => {
      const o = c.orchestrator;
      // The orchestrator's own answer, normalised through the wire format as a gateway reads it.
      const info = o
        ? decodeMessage(
            "OrchestratorInfo",
            encodeMessage(
              "OrchestratorInfo",
              await orchestratorInfoMessage(o.info, Buffer.alloc(0), undefined),
            ),
          )
        : undefined;
      sendJson(res, networkCapabilitiesBody(c.node, c.state, info));
    },
    "/metrics": async (_req, res) => {
      if (!c.node.flags.monitor) return sendText(res, 404, "404 page not found");
      const text = await c.registry.metrics();
      res.writeHead(200, { "Content-Type": c.registry.contentType });
      res.end(text);
    },
    "/setMaxSessions": async (req, res, url) => setMaxSessions(c, await formOf(req, url), res),
    ...cliPriceRoutes(c),
    ...cliChainRoutes(c),
    "/__sim/state": (_req, res) => sendJson(res, { ...c.control.snapshot() }),
    "/__sim/actions": async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      let actions: SimAction[];
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
        actions = z.array(SimActionSchema).parse(Array.isArray(body) ? body : [body]);
      } catch (err) {
        return sendJson(
          res,
          {
            error: `expected a JSON action or list of actions (log, sessions, paymentCreateErrors, fail, clear, gpuMemoryUsed): ${(err as Error).message.slice(0, 300)}`,
          },
          400,
        );
      }
      for (const a of actions) c.control.apply(a);
      sendJson(res, { ...c.control.snapshot() });
    },
  };
}

export function httpRoutes(c: RouteContext): Record<string, Handler> {
  const routes: Record<string, Handler> = {
    "/healthz": (_req, res) => {
      res.writeHead(200);
      res.end();
    },
    "/status": status(c),
  };
  if (c.sessions && c.orchestrator)
    Object.assign(routes, orchestratorSegmentRoutes(c, c.sessions, c.orchestrator));
  if (c.gateway) Object.assign(routes, gatewayHttpRoutes(c.gateway, c.log, c.node.httpIngest));
  c.ai?.extendHttpRoutes(routes);
  c.live?.extendHttpRoutes(routes);
  return routes;
}

// As server/handlers.go setMaxSessions: "auto", or an integer > 0.
function setMaxSessions(c: RouteContext, form: URLSearchParams, res: Parameters<Handler>[1]): void {
  const value = form.get("maxSessions") ?? "";
  if (value === "") {
    sendText(res, 400, "missing form param: maxSessions");
    return;
  }
  if (value === "auto") {
    c.state.sessionLimit = 0; // the sum of connected transcoders' capacities: none here
    c.log("I", "livepeernode.go:349", "Updated session limit to 0");
    res.writeHead(200);
    res.end("Max sessions set to auto\n");
    return;
  }
  if (!/^[+-]?\d+$/.test(value)) {
    sendText(res, 400, `strconv.Atoi: parsing "${value}": invalid syntax`);
    return;
  }
  const n = Number(value);
  if (n <= 0) {
    sendText(res, 400, "Max Sessions must be 'auto' or greater than zero");
    return;
  }
  c.state.sessionLimit = n;
  c.log("I", "livepeernode.go:349", `Updated session limit to ${n}`);
  res.writeHead(200);
  res.end(`Max sessions set to ${n}\n`);
}
