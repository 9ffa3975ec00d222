// A small REST client over client-node's KubeConfig (auth, TLS, the pooled dispatcher) and its
// fetch library, generic over ResourceType: custom resources, the /status subresource, server-side
// apply with its content type set per call, and streaming watches all go through one path, with
// one error type carrying the server's reason and message. Responses stay plain JSON (timestamps
// as strings), which is what status comparison and the caches want. Measured as fast as the
// generated client on the same pooled KubeConfig (bench/dispatcher-reuse.ts).
// Deep imports: the package index loads every generated API class (see slim-client-node.ts).
import type { KubeConfig } from "@kubernetes/client-node";
import {
  HttpMethod,
  IsomorphicFetchHttpLibrary,
  RequestContext,
} from "@kubernetes/client-node/dist/gen/http/http.js";
import { PatchStrategy } from "@kubernetes/client-node/dist/patch.js";
import { KubeApiError } from "./api-error.ts";
import type { KubeList, KubeObject } from "./objects.ts";
import { apiVersionOf, type ResourceType, resourcePath } from "./resources.ts";

type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** Set per call: the API server answers 415 to a patch with the wrong one. */
  contentType?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface ListOptions {
  namespace?: string | undefined;
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  limit?: number;
  continue?: string | undefined;
  resourceVersion?: string;
}

export interface WatchOptions {
  namespace?: string | undefined;
  resourceVersion: string;
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  /** The server ends the watch after this; the informer then resumes from the last version. */
  timeoutSeconds?: number;
  signal: AbortSignal;
}

export interface WatchEvent<T extends KubeObject = KubeObject> {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: T;
}

/** The Status object the API server sends in a watch ERROR event. */
export interface StatusObject extends KubeObject {
  code?: number;
  reason?: string;
  message?: string;
}

export interface ApplyOptions {
  fieldManager: string;
  force?: boolean;
  subresource?: "status";
}

/** Observes every request (method, HTTP status or 0 for a transport error, seconds). */
export type RequestObserver = (method: string, status: number, seconds: number) => void;

const DEFAULT_TIMEOUT_MS = 30_000;
const methods: Record<string, HttpMethod> = {
  GET: HttpMethod.GET,
  POST: HttpMethod.POST,
  PUT: HttpMethod.PUT,
  PATCH: HttpMethod.PATCH,
  DELETE: HttpMethod.DELETE,
};

export class KubeClient {
  readonly kc: KubeConfig;
  readonly #http = new IsomorphicFetchHttpLibrary();
  readonly #observers: RequestObserver[] = [];

  constructor(kc: KubeConfig) {
    this.kc = kc;
  }

  get server(): string {
    const cluster = this.kc.getCurrentCluster();
    if (!cluster) throw new Error("the kubeconfig has no current cluster: set current-context");
    return cluster.server.replace(/\/+$/, "");
  }

  observe(observer: RequestObserver): void {
    this.#observers.push(observer);
  }

  async #send(method: string, path: string, opts: RequestOptions, timeoutMs: number | undefined) {
    const url = new URL(this.server + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) {
      if (v !== undefined && v !== "") url.searchParams.set(k, String(v));
    }
    const httpMethod = methods[method];
    if (!httpMethod) throw new Error(`unsupported HTTP method ${method}`);
    const ctx = new RequestContext(url.toString(), httpMethod);
    ctx.setHeaderParam("Accept", "application/json");
    if (opts.body !== undefined) {
      ctx.setHeaderParam("Content-Type", opts.contentType ?? "application/json");
      ctx.setBody(JSON.stringify(opts.body));
    }
    const signals = [opts.signal, timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined].filter(
      (s): s is AbortSignal => s !== undefined,
    );
    // AbortSignal.any is comparatively costly: only combine when there are two.
    if (signals.length) ctx.setSignal(signals.length === 1 ? signals[0]! : AbortSignal.any(signals));
    await this.kc.applySecurityAuthentication(ctx);
    const t0 = performance.now();
    try {
      const res = await this.#http.send(ctx).toPromise();
      for (const o of this.#observers) o(method, res.httpStatusCode, (performance.now() - t0) / 1000);
      return res;
    } catch (err) {
      for (const o of this.#observers) o(method, 0, (performance.now() - t0) / 1000);
      throw err;
    }
  }

  /** One request; the decoded JSON body, or a KubeApiError with the server's reason and message. */
  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.#send(method, path, opts, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const text = await res.body.text();
    if (res.httpStatusCode >= 200 && res.httpStatusCode < 300) return (text ? JSON.parse(text) : {}) as T;
    throw apiError(res.httpStatusCode, text, method, path);
  }

  get<T extends KubeObject>(t: ResourceType, namespace: string | undefined, name: string): Promise<T> {
    return this.request<T>("GET", resourcePath(t, { namespace, name }));
  }

  list<T extends KubeObject>(t: ResourceType, opts: ListOptions = {}): Promise<KubeList<T>> {
    return this.request<KubeList<T>>("GET", resourcePath(t, { namespace: opts.namespace }), {
      query: {
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
        limit: opts.limit,
        continue: opts.continue,
        resourceVersion: opts.resourceVersion,
      },
    });
  }

  create<T extends KubeObject>(t: ResourceType, obj: T, fieldManager?: string): Promise<T> {
    const namespace = obj.metadata?.namespace;
    return this.request<T>("POST", resourcePath(t, { namespace }), {
      body: { ...obj, apiVersion: apiVersionOf(t), kind: t.kind },
      query: { fieldManager },
    });
  }

  /** PUT: optimistic concurrency through `metadata.resourceVersion` (409 when someone wrote first). */
  replace<T extends KubeObject>(t: ResourceType, obj: T, subresource?: "status"): Promise<T> {
    const name = obj.metadata?.name;
    if (!name) throw new Error(`replace ${t.kind}: metadata.name is required`);
    return this.request<T>(
      "PUT",
      resourcePath(t, { namespace: obj.metadata?.namespace, name, subresource }),
      {
        body: { ...obj, apiVersion: apiVersionOf(t), kind: t.kind },
      },
    );
  }

  /** A JSON merge patch (RFC 7386). */
  mergePatch<T extends KubeObject>(
    t: ResourceType,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    subresource?: "status",
  ): Promise<T> {
    return this.request<T>("PATCH", resourcePath(t, { namespace, name, subresource }), {
      body: patch,
      contentType: PatchStrategy.MergePatch,
    });
  }

  /** Server-side apply of `obj` (apiVersion and kind are filled in from `t`). */
  apply<T extends KubeObject>(t: ResourceType, obj: KubeObject, opts: ApplyOptions): Promise<T> {
    const name = obj.metadata?.name;
    if (!name) throw new Error(`apply ${t.kind}: metadata.name is required`);
    const path = resourcePath(t, { namespace: obj.metadata?.namespace, name, subresource: opts.subresource });
    return this.request<T>("PATCH", path, {
      body: { ...obj, apiVersion: apiVersionOf(t), kind: t.kind },
      contentType: PatchStrategy.ServerSideApply,
      query: { fieldManager: opts.fieldManager, force: opts.force ?? true },
    });
  }

  async delete(t: ResourceType, namespace: string | undefined, name: string): Promise<void> {
    await this.request("DELETE", resourcePath(t, { namespace, name }));
  }

  /**
   * Opens a watch: resolves once the server accepted it (so a caller knows it is connected), to
   * the stream of events. The stream ends when the server closes it (timeoutSeconds) and throws
   * when `signal` aborts; HTTP errors (403, 410 for a too-old resourceVersion) reject here.
   */
  async openWatch<T extends KubeObject>(
    t: ResourceType,
    opts: WatchOptions,
  ): Promise<AsyncIterable<WatchEvent<T>>> {
    const path = resourcePath(t, { namespace: opts.namespace });
    const res = await this.#send(
      "GET",
      path,
      {
        query: {
          watch: true,
          resourceVersion: opts.resourceVersion,
          allowWatchBookmarks: true,
          labelSelector: opts.labelSelector,
          fieldSelector: opts.fieldSelector,
          timeoutSeconds: opts.timeoutSeconds,
        },
        signal: opts.signal,
      },
      undefined,
    );
    if (res.httpStatusCode !== 200) throw apiError(res.httpStatusCode, await res.body.text(), "WATCH", path);
    const stream = res.body.stream();
    return watchEvents<T>(stream as unknown as AsyncIterable<Uint8Array> | null);
  }
}

async function* watchEvents<T extends KubeObject>(
  stream: AsyncIterable<Uint8Array> | null,
): AsyncGenerator<WatchEvent<T>> {
  if (!stream) return;
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line) yield JSON.parse(line) as WatchEvent<T>;
      newline = buffered.indexOf("\n");
    }
  }
}

function apiError(status: number, body: string, method: string, path: string): KubeApiError {
  let reason = "";
  let message = body.slice(0, 500);
  try {
    const s = JSON.parse(body) as StatusObject;
    reason = s.reason ?? "";
    message = s.message ?? message;
  } catch {}
  return new KubeApiError(status, reason || `HTTP${status}`, message, method, path);
}
