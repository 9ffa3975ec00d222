// The webhook operations with their rules: tenancy (another tenant's webhook is a 404, a
// non-admin naming another project a 403), PUT semantics (the path's id is authoritative,
// writable fields replaced, an omitted sharedSecret kept and "" removing it), list paging.
import { randomUUID } from "node:crypto";
import type { StoredWebhook } from "../../schema/webhook.ts";
import { owns, type Principal } from "../auth/claims.ts";
import { badRequest, forbidden, notFound } from "../errors/http-error.ts";
import type { WebhookRepository } from "../store/webhook-repository.ts";
import {
  newWebhookResource,
  type Tenant,
  tenantLabels,
  tenantOf,
  toApiWebhook,
  webhookSpec,
} from "../store/webhook-resource.ts";
import type { ApiWebhook } from "./api-schema.ts";
import { type Page, pageOf } from "./cursor.ts";
import { matches } from "./filters.ts";
import type { ListQuery } from "./list-query.ts";
import { parseWebhookWrite } from "./request-body.ts";

export interface ServiceOptions {
  repo: WebhookRepository;
  allowLoopbackTargets: boolean;
  now?: () => number;
}

function visible(p: Principal, r: StoredWebhook | undefined): r is StoredWebhook {
  if (!r || r.metadata?.deletionTimestamp) return false;
  const tenant = tenantOf(r);
  return p.admin || (tenant !== undefined && owns(p, tenant));
}

function missing(id: string): never {
  throw notFound(`webhook ${JSON.stringify(id.slice(0, 100))} not found`);
}

export function requireId(id: string | undefined): string {
  if (!id) throw badRequest("webhook id not provided: use /webhook/{id}");
  return id;
}

/** The project a write lands in: the body's, if the caller may use it, else `fallback` (also for ""). */
function projectFor(p: Principal, bodyProject: string | undefined, fallback: string): string {
  if (bodyProject === undefined || bodyProject === "") return fallback;
  if (!p.admin && bodyProject !== p.projectId) {
    throw forbidden(
      `projectId ${JSON.stringify(bodyProject.slice(0, 100))} is not the project of your token ('${p.projectId}'): omit projectId or use a token for that project`,
    );
  }
  return bodyProject;
}

export class WebhookService {
  readonly #repo: WebhookRepository;
  readonly #allowLoopback: boolean;
  readonly #now: () => number;

  constructor(o: ServiceOptions) {
    this.#repo = o.repo;
    this.#allowLoopback = o.allowLoopbackTargets;
    this.#now = o.now ?? Date.now;
  }

  list(p: Principal, q: ListQuery): Page<ApiWebhook> & { total: number } {
    const all = this.#repo
      .list()
      .filter((r) => visible(p, r))
      .map(toApiWebhook)
      .filter((w) => matches(w, q.filters));
    return { ...pageOf(all, q.limit, q.after), total: all.length };
  }

  get(p: Principal, id: string): ApiWebhook {
    const r = this.#repo.get(requireId(id));
    if (!visible(p, r)) missing(id);
    return toApiWebhook(r);
  }

  async create(p: Principal, body: unknown): Promise<ApiWebhook> {
    const write = parseWebhookWrite(body, { allowLoopbackTargets: this.#allowLoopback });
    const tenant: Tenant = { userId: p.userId, projectId: projectFor(p, write.projectId, p.projectId) };
    const resource = newWebhookResource(
      randomUUID(),
      this.#repo.namespace,
      this.#now(),
      webhookSpec(write.content, tenant),
      tenant,
    );
    return toApiWebhook(await this.#repo.create(resource, write.sharedSecret || undefined));
  }

  async update(p: Principal, id: string, body: unknown): Promise<ApiWebhook> {
    requireId(id);
    const write = parseWebhookWrite(body, { pathId: id, allowLoopbackTargets: this.#allowLoopback });
    const updated = await this.#repo.update(id, (current) => {
      if (!visible(p, current)) missing(id);
      const stored = tenantOf(current);
      // A webhook only admins can see (no user) is adopted by the admin who edits it.
      const tenant: Tenant = {
        userId: stored?.userId ?? p.userId,
        projectId: projectFor(p, write.projectId, stored?.projectId ?? p.projectId),
      };
      return {
        spec: webhookSpec(write.content, tenant),
        labels: tenantLabels(tenant),
        sharedSecret: write.sharedSecret,
      };
    });
    return toApiWebhook(updated);
  }

  async remove(p: Principal, id: string): Promise<ApiWebhook> {
    requireId(id);
    const removed = await this.#repo.remove(id, (current) => {
      if (!visible(p, current)) missing(id);
    });
    return toApiWebhook(removed);
  }
}
