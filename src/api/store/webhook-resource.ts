// The Webhook custom resource (livepeer.org/v1alpha1; its schema is src/schema/webhook.ts) and its
// mapping to the API's webhook object. Mapped loosely: a hand-written Webhook, or one admitted
// under an older CRD, may lack fields or hold values this version does not know, and the answer
// must match the public contract anyway. metadata.name is the API id; the tenant is
// spec.userId/spec.projectId (labels livepeer.org/user-id and livepeer.org/project-id mirror them
// for kubectl, and are what a kubectl-created Webhook may carry instead); createdAt is the exact
// ms in an annotation.
import { createHash } from "node:crypto";
import { API_VERSION } from "../../schema/api-group.ts";
import type { Loose } from "../../schema/custom-resource.ts";
import {
  type SecretKeyRef,
  type StoredWebhook,
  WEBHOOK_CREATED_AT_ANNOTATION,
  WEBHOOK_PROJECT_ID_LABEL,
  WEBHOOK_SECRET_MANAGED_BY_API,
  WEBHOOK_SECRET_MANAGED_BY_LABEL,
  WEBHOOK_USER_ID_LABEL,
  type WebhookSpec,
} from "../../schema/webhook.ts";
import type { ApiWebhook } from "../../schema/webhook-api.ts";
import { WEBHOOK_EVENT_KINDS, type WebhookEventKind } from "../../schema/webhook-events.ts";
import { DEFAULT_PROJECT } from "../auth/claims.ts";

/** A Webhook as this API maps it: trusting none of its fields. */
type FoundWebhook = Loose<StoredWebhook>;

export const USER_LABEL = WEBHOOK_USER_ID_LABEL;
export const PROJECT_LABEL = WEBHOOK_PROJECT_ID_LABEL;
export const CREATED_AT_ANNOTATION = WEBHOOK_CREATED_AT_ANNOTATION;
export const MANAGED_BY_LABEL = WEBHOOK_SECRET_MANAGED_BY_LABEL;
export const MANAGED_BY_API = WEBHOOK_SECRET_MANAGED_BY_API;

export interface Tenant {
  userId: string;
  projectId: string;
}

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** A label value for an id: the id itself when Kubernetes allows it, else a stable hash. */
export function labelValue(id: string): string {
  if (id.length <= 63 && LABEL_VALUE.test(id)) return id;
  return `sha256-${createHash("sha256").update(id).digest("hex").slice(0, 56)}`;
}

/** Who owns a Webhook; undefined when it names no user (then only admins see it). */
export function tenantOf(r: FoundWebhook): Tenant | undefined {
  const labels = r.metadata?.labels ?? {};
  const userId = nonEmpty(r.spec?.userId) ?? nonEmpty(labels[USER_LABEL]);
  if (!userId) return undefined;
  const projectId = nonEmpty(r.spec?.projectId) ?? nonEmpty(labels[PROJECT_LABEL]) ?? DEFAULT_PROJECT;
  return { userId, projectId };
}

function nonEmpty(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

function text(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** Milliseconds from a number, a numeric string or an RFC 3339 time; undefined otherwise. */
export function toMillis(v: unknown): number | undefined {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string" && v !== "") {
    const n = /^\d+$/.test(v) ? Number(v) : Date.parse(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

export function createdAtOf(r: FoundWebhook): number {
  return (
    toMillis(r.metadata?.annotations?.[CREATED_AT_ANNOTATION]) ?? toMillis(r.metadata?.creationTimestamp) ?? 0
  );
}

const KNOWN_EVENTS = new Set<string>(WEBHOOK_EVENT_KINDS);

function apiStatus(s: FoundWebhook["status"]): ApiWebhook["status"] | undefined {
  if (!s) return undefined;
  const out: NonNullable<ApiWebhook["status"]> = {};
  const f = s.lastFailure;
  if (f && typeof f === "object") {
    const lastFailure: NonNullable<NonNullable<ApiWebhook["status"]>["lastFailure"]> = {};
    const timestamp = toMillis(f.timestamp);
    if (timestamp !== undefined) lastFailure.timestamp = timestamp;
    if (typeof f.error === "string") lastFailure.error = f.error;
    if (typeof f.response === "string") lastFailure.response = f.response;
    if (typeof f.statusCode === "number") lastFailure.statusCode = f.statusCode;
    out.lastFailure = lastFailure;
  }
  const lastTriggeredAt = toMillis(s.lastTriggeredAt);
  if (lastTriggeredAt !== undefined) out.lastTriggeredAt = lastTriggeredAt;
  return Object.keys(out).length ? out : undefined;
}

// Cached objects are replaced, never mutated, on every change: their API view can be memoised.
const views = new WeakMap<FoundWebhook, ApiWebhook>();

/** The API's view: exactly the spec's fields; never the secret nor its reference. */
export function toApiWebhook(r: FoundWebhook): ApiWebhook {
  let view = views.get(r);
  if (!view) {
    view = buildApiWebhook(r);
    views.set(r, view);
  }
  return view;
}

function buildApiWebhook(r: FoundWebhook): ApiWebhook {
  const tenant = tenantOf(r);
  const out: ApiWebhook = {
    id: text(r.metadata?.name),
    name: text(r.spec?.name),
    kind: "webhook",
    userId: tenant?.userId ?? "",
    projectId: tenant?.projectId ?? DEFAULT_PROJECT,
    createdAt: createdAtOf(r),
    url: text(r.spec?.url),
  };
  // A hand-written Webhook may list kinds this API does not know; clients validate against the
  // enum, so those are left out of the answer (the resource keeps them).
  const events = r.spec?.events;
  if (Array.isArray(events)) {
    out.events = events.filter((e): e is WebhookEventKind => typeof e === "string" && KNOWN_EVENTS.has(e));
  }
  const streamId = nonEmpty(r.spec?.streamId);
  if (streamId) out.streamId = streamId;
  const status = apiStatus(r.status);
  if (status) out.status = status;
  return out;
}

/** What a request writes of a webhook (the rest of the spec is the tenant's and the secret's). */
export type WebhookContent = Pick<WebhookSpec, "name" | "url" | "events" | "streamId">;

/** The spec for `content` owned by `tenant`, with an optional secret reference. */
export function webhookSpec(content: WebhookContent, tenant: Tenant, secretRef?: SecretKeyRef): WebhookSpec {
  const spec: WebhookSpec = {
    name: content.name,
    url: content.url,
    projectId: tenant.projectId,
    userId: tenant.userId,
  };
  if (content.events) spec.events = [...new Set(content.events)];
  if (content.streamId) spec.streamId = content.streamId;
  if (secretRef) spec.sharedSecretRef = secretRef;
  return spec;
}

export function tenantLabels(tenant: Tenant): Record<string, string> {
  return { [USER_LABEL]: labelValue(tenant.userId), [PROJECT_LABEL]: labelValue(tenant.projectId) };
}

export function newWebhookResource(
  id: string,
  namespace: string,
  createdAtMs: number,
  spec: WebhookSpec,
  tenant: Tenant,
): StoredWebhook {
  return {
    apiVersion: API_VERSION,
    kind: "Webhook",
    metadata: {
      name: id,
      namespace,
      labels: tenantLabels(tenant),
      annotations: { [CREATED_AT_ANNOTATION]: String(createdAtMs) },
    },
    spec,
  };
}
