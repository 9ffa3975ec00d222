// GET /discovery on an orchestrator's service port (go-livepeer 0.9's live runner registry,
// doc/live-runner.md): `[{"address", "runners": [{url, app, capacity, capacity_used, ...}]}]`,
// only the runners the node considers ready (static: health_url answered; dynamic: heartbeat
// within its TTL). 404 when the node runs no live runners. A runner's route is the segment after
// /apps/ in its url: its label under label routing, else its runner id.
import { z } from "zod";
import { getJson, type RequestOptions } from "./http.ts";

const DiscoveredRunnerSchema = z
  .object({
    url: z.string(),
    app: z.string(),
    capacity: z.number().int().optional(),
    capacity_used: z.number().int().optional(),
    capacity_available: z.number().int().optional(),
    price_info: z
      .object({ price: z.unknown(), currency: z.string().optional(), unit: z.string().optional() })
      .loose()
      .optional(),
  })
  .loose();

const DiscoverySchema = z.array(
  z.object({ address: z.string(), runners: z.array(DiscoveredRunnerSchema).nullish() }).loose(),
);

export interface LiveRunnerSeen {
  /** The route in its url: a static runner's label (label routing) or the runner id. */
  route: string;
  app: string;
  capacity: number;
  used: number;
}

export function routeOf(url: string): string {
  const m = /\/apps\/([^/]+)\//.exec(`${url}/`);
  return m ? decodeURIComponent(m[1]!) : url;
}

export async function readLiveDiscovery(
  serviceUrl: string,
  options: RequestOptions = {},
): Promise<LiveRunnerSeen[]> {
  const body = await getJson(serviceUrl, "/discovery", DiscoverySchema, { ...options, selfSigned: true });
  return body.flatMap((o) =>
    (o.runners ?? []).map((r) => ({
      route: routeOf(r.url),
      app: r.app,
      capacity: r.capacity ?? 1,
      used: r.capacity_used ?? 0,
    })),
  );
}
