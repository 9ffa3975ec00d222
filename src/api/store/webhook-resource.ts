// The Webhook custom resource (livepeer.org/v1alpha1; its schema is src/schema/webhook.ts) as
// this API reads it (loosely: hand-written objects may lack fields) and its mapping to the API's webhook
// object. metadata.name is the API id; the tenant is spec.userId/spec.projectId (labels
// livepeer.org/user-id and livepeer.org/project-id mirror them for kubectl, and are what a
// kubectl-created Webhook may carry instead); createdAt is the exact ms in an annotation.
import { createHash } from "node:crypto";
import type { KubeObject } from "../../kube/objects.ts";
import type { ResourceType } from "../../kube/resources.ts";
import { API_VERSION, GROUP, VERSION } from "../../schema/api-group.ts";
import {
  type SecretKeyRef,
  WEBHOOK_CREATED_AT_ANNOTATION,
  WEBHOOK_PROJECT_ID_LABEL,
  WEBHOOK_SECRET_MANAGED_BY_API,
  WEBHOOK_SECRET_MANAGED_BY_LABEL,
  WEBHOOK_USER_ID_LABEL,
} from "../../schema/webhook.ts";
import type { ApiWebhook } from "../../schema/webhook-api.ts";
import { WEBHOOK_EVENT_KINDS, type WebhookEventKind } from "../../schema/webhook-events.ts";
import { DEFAULT_PROJECT } from "../auth/claims.ts";

export const Webhooks: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: "webhooks",
  kind: "Webhook",
  namespaced: true,
};

export const USER_LABEL = WEBHOOK_USER_ID_LABEL;
export const PROJECT_LABEL = WEBHOOK_PROJECT_ID_LABEL;
export const CREATED_AT_ANNOTATION = WEBHOOK_CREATED_AT_ANNOTATION;
export const MANAGED_BY_LABEL = WEBHOOK_SECRET_MANAGED_BY_LABEL;
export const MANAGED_BY_API = WEBHOOK_SECRET_MANAGED_BY_API;

export type { SecretKeyRef };

export interface WebhookSpec {
  name: string;
  url: string;
  events?: string[];
  streamId?: string;
  projectId?: string;
  userId?: string;
  sharedSecretRef?: SecretKeyRef;
}

export interface WebhookResourceStatus {
  lastFailure?: { timestamp?: unknown; error?: unknown; response?: unknown; statusCode?: unknown };
  lastTriggeredAt?: unknown;
  conditions?: unknown[];
}

export interface WebhookResource extends KubeObject {
  spec: WebhookSpec;
  status?: WebhookResourceStatus;
}

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
export function tenantOf(r: WebhookResource): Tenant | undefined {
  const labels = r.metadata?.labels ?? {};
  const userId = nonEmpty(r.spec?.userId) ?? nonEmpty(labels[USER_LABEL]);
  if (!userId) return undefined;
  const projectId = nonEmpty(r.spec?.projectId) ?? nonEmpty(labels[PROJECT_LABEL]) ?? DEFAULT_PROJECT;
  return { userId, projectId };
}

function nonEmpty(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
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

export function createdAtOf(r: WebhookResource): number {
  return (
    toMillis(r.metadata?.annotations?.[CREATED_AT_ANNOTATION]) ?? toMillis(r.metadata?.creationTimestamp) ?? 0
  );
}

const KNOWN_EVENTS = new Set<string>(WEBHOOK_EVENT_KINDS);

function apiStatus(s: WebhookResourceStatus | undefined): ApiWebhook["status"] | undefined {
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
const views = new WeakMap<WebhookResource, ApiWebhook>();

/** The API's view: exactly the spec's fields; never the secret nor its reference. */
export function toApiWebhook(r: WebhookResource): ApiWebhook {
  let view = views.get(r);
  if (!view) {
    view = buildApiWebhook(r);
    views.set(r, view);
  }
  return view;
}

function buildApiWebhook(r: WebhookResource): ApiWebhook {
  const tenant = tenantOf(r);
  const out: ApiWebhook = {
    id: r.metadata?.name ?? "",
    name: r.spec?.name ?? "",
    kind: "webhook",
    userId: tenant?.userId ?? "",
    projectId: tenant?.projectId ?? DEFAULT_PROJECT,
    createdAt: createdAtOf(r),
    url: r.spec?.url ?? "",
  };
  // A hand-written Webhook may list kinds this API does not know; clients validate against the
  // enum, so those are left out of the answer (the resource keeps them).
  if (Array.isArray(r.spec?.events)) {
    out.events = r.spec.events.filter((e): e is WebhookEventKind => KNOWN_EVENTS.has(e));
  }
  if (r.spec?.streamId) out.streamId = r.spec.streamId;
  const status = apiStatus(r.status);
  if (status) out.status = status;
  return out;
}

export interface WebhookContent {
  name: string;
  url: string;
  events?: WebhookEventKind[] | undefined;
  streamId?: string | undefined;
}

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
): WebhookResource {
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
