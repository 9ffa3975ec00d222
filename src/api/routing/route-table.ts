// Which methods a concrete path accepts, learned from the routes fastify registers (an onRoute
// hook), so that every route - probes, metrics, node hooks, openapi.json, the webhook, log and
// event routes - answers a method it does not take with 405 and an Allow header that lists what
// it does take, and no list of paths has to be kept beside the routes.
import type { RouteOptions } from "fastify";

/** Routes whose handler itself answers 405 (PUT /webhook ...) mark themselves with this config. */
export interface RouteTableConfig {
  answersMethodNotAllowed?: boolean;
}

interface Entry {
  pattern: RegExp;
  methods: Set<string>;
}

/** `/api/webhook/:id/log` -> a RegExp matching `/api/webhook/<one segment, maybe empty>/log`. */
export function pathPattern(url: string): RegExp {
  const parts = url.split(/(:[A-Za-z0-9_]+|\*)/);
  const source = parts
    .map((p) => {
      if (p === "*") return ".*";
      // find-my-way matches an empty segment too (`/webhook/` reaches `/webhook/:id`).
      if (p.startsWith(":")) return "[^/]*";
      return p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("");
  return new RegExp(`^${source}$`);
}

export class RouteTable {
  readonly #entries = new Map<string, Entry>();

  /** Records a route (call from an onRoute hook). */
  add(route: Pick<RouteOptions, "url" | "method" | "config">): void {
    if ((route.config as RouteTableConfig | undefined)?.answersMethodNotAllowed) return;
    const entry = this.#entries.get(route.url) ?? { pattern: pathPattern(route.url), methods: new Set() };
    for (const m of Array.isArray(route.method) ? route.method : [route.method]) entry.methods.add(m);
    this.#entries.set(route.url, entry);
  }

  /** The methods routes accept on `path` (no query), in a stable order; undefined when no route matches it. */
  allowedMethods(path: string): string[] | undefined {
    const methods = new Set<string>();
    for (const e of this.#entries.values()) {
      if (e.pattern.test(path)) for (const m of e.methods) methods.add(m);
    }
    return methods.size ? [...methods].sort(byUsualOrder) : undefined;
  }
}

const USUAL = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

function byUsualOrder(a: string, b: string): number {
  const ia = USUAL.indexOf(a);
  const ib = USUAL.indexOf(b);
  return (ia < 0 ? USUAL.length : ia) - (ib < 0 ? USUAL.length : ib) || a.localeCompare(b);
}
