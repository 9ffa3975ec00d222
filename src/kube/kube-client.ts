// A small REST client over the connections of kube-connections.ts (HTTP/2 to an https server,
// HTTP/1.1 otherwise), with client-node's KubeConfig for authentication, generic over ResourceType: custom
// resources, the /status subresource, server-side apply with its content type set per call, and
// streaming watches all go through one path, with one error type carrying the server's reason
// and message. Responses stay plain JSON (timestamps as strings), which is what status comparison
// and the caches want. Measured against client-node's own client in
// bench/transport.ts.
import type { Agent } from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";
import type { KubeConfig } from "@kubernetes/client-node";
// Deep import: the package index loads every generated API class (see slim-client-node.ts).
import { PatchStrategy } from "@kubernetes/client-node/dist/patch.js";
import { http } from "../process/builtin-http.ts";
import { KubeApiError } from "./api-error.ts";
import { PooledKubeConfig } from "./kube-config.ts";
import { KubeConnections } from "./kube-connections.ts";
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

/** An answer whose body is still to be read: the status and the body as a byte stream. */
export interface KubeResponse {
  status: number;
  body: Readable;
}

export class KubeClient {
  readonly kc: KubeConfig;
  readonly #connections: KubeConnections;
  readonly #observers: RequestObserver[] = [];

  /** Connections are shared with every client on the same PooledKubeConfig. */
  constructor(kc: KubeConfig) {
    this.kc = kc;
    this.#connections = kc instanceof PooledKubeConfig ? kc.connections : new KubeConnections(kc);
  }

  get server(): string {
    const cluster = this.kc.getCurrentCluster();
    if (!cluster) throw new Error("the kubeconfig has no current cluster: set current-context");
    return cluster.server.replace(/\/+$/, "");
  }

  observe(observer: RequestObserver): void {
    this.#observers.push(observer);
  }

  /**
   * One request, resolved when the answer's headers arrive; the body is the caller's to read (or
   * to destroy). `timeoutMs` bounds the whole exchange, body included.
   */
  async send(
    method: string,
    path: string,
    opts: RequestOptions = {},
    timeoutMs?: number,
  ): Promise<KubeResponse> {
    const url = new URL(this.server + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) {
      if (v !== undefined && v !== "") url.searchParams.set(k, String(v));
    }
    const connection = await this.#connections.connection();
    const { headers } = connection;
    headers.Accept = "application/json";
    let payload: string | undefined;
    if (opts.body !== undefined) {
      payload = JSON.stringify(opts.body);
      headers["Content-Type"] = opts.contentType ?? "application/json";
      headers["Content-Length"] = String(Buffer.byteLength(payload));
    }
    const signals = [opts.signal, timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined].filter(
      (s): s is AbortSignal => s !== undefined,
    );
    // AbortSignal.any is comparatively costly: only combine when there are two.
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    const t0 = performance.now();
    try {
      const res =
        connection.protocol === "http/2"
          ? await connection.session.request(method, url.pathname + url.search, headers, payload, signal)
          : await http1Request(url, method, headers, connection.agent, payload, signal);
      for (const o of this.#observers) o(method, res.status, (performance.now() - t0) / 1000);
      return res;
    } catch (err) {
      for (const o of this.#observers) o(method, 0, (performance.now() - t0) / 1000);
      throw err;
    }
  }

  /** One request; the decoded JSON body, or a KubeApiError with the server's reason and message. */
  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.send(method, path, opts, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const text = await bodyText(res.body);
    if (res.status >= 200 && res.status < 300) return (text ? JSON.parse(text) : {}) as T;
    throw apiError(res.status, text, method, path);
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
    const res = await this.send(
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
    if (res.status !== 200) throw apiError(res.status, await bodyText(res.body), "WATCH", path);
    return watchEvents<T>(res.body);
  }
}

function http1Request(
  url: URL,
  method: string,
  headers: Record<string, string>,
  agent: Agent,
  payload: string | undefined,
  signal: AbortSignal | undefined,
): Promise<KubeResponse> {
  return new Promise<KubeResponse>((resolve, reject) => {
    const transport = url.protocol === "http:" ? http : https;
    const req = transport.request(url, { method, headers, agent, ...(signal ? { signal } : {}) }, (body) =>
      resolve({ status: body.statusCode ?? 0, body }),
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** The whole body as bytes (a byte limit, as on pod logs, is counted in bytes). */
/**
 * The whole body as bytes (a byte limit, as on pod logs, is counted in bytes). Read with events,
 * not `for await`: an HTTP/2 answer that arrived whole before reading began is already `closed`
 * (nghttp2 is done with it) with its body still buffered, and the async iterator takes that for
 * ERR_STREAM_PREMATURE_CLOSE (under load: ~0.5 % of creates in bench/api-get.ts, writes that landed).
 */
export function bodyBytes(body: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const cutOff = () =>
      Object.assign(new Error("the answer's body was cut off"), { code: "ERR_STREAM_PREMATURE_CLOSE" });
    if (body.destroyed) {
      // Torn down before reading began: its events are gone.
      reject(body.errored ?? cutOff());
      return;
    }
    const chunks: Buffer[] = [];
    body.on("data", (c: Buffer) => chunks.push(c));
    body.once("end", () => resolve(Buffer.concat(chunks)));
    body.once("error", reject);
    body.once("close", () => {
      if (!body.readableEnded) reject(body.errored ?? cutOff());
    });
  });
}

async function bodyText(body: Readable): Promise<string> {
  return (await bodyBytes(body)).toString("utf8");
}

async function* watchEvents<T extends KubeObject>(
  stream: AsyncIterable<Uint8Array>,
): AsyncGenerator<WatchEvent<T>> {
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
