// What the api-*.test.ts files share: the Webhook CRD installed once, an API server started
// in-process on 127.0.0.1:0 against the run's control plane (logs captured), tokens, and a
// small HTTP helper that never throws on a status. Its deliveries reach loopback only
// (egress loopback-only): the tests' made-up webhook URLs (example.com, generated IP literals)
// are refused at connect time and logged as failed attempts, never dialled.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { inject } from "vitest";
import { mintToken } from "../../src/api/auth/mint.ts";
import { type ApiServerOptions, type RunningApiServer, startApiServer } from "../../src/api/server.ts";
import { kubectl } from "./support/cluster.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const WEBHOOK_CRD = path.join(root, "deploy/crds/webhooks.livepeer.org.yaml");

export async function installWebhookCrd(): Promise<void> {
  await kubectl(["apply", "--server-side", "--force-conflicts", "-f", WEBHOOK_CRD]);
  await kubectl(["wait", "--for=condition=Established", "--timeout=60s", "crd/webhooks.livepeer.org"]);
}

export interface TestApi {
  server: RunningApiServer;
  url: string;
  secret: Uint8Array;
  logs: string[];
  token(claims?: { sub?: string; projectId?: string; scope?: string; ttlSeconds?: number }): Promise<string>;
  close(): Promise<void>;
}

export async function startTestApi(
  namespace: string,
  extra: Partial<ApiServerOptions> = {},
): Promise<TestApi> {
  const secret = randomBytes(48);
  const logs: string[] = [];
  const dir = mkdtempSync(path.join(os.tmpdir(), "api-delivery-"));
  const server = await startApiServer({
    host: "127.0.0.1",
    port: 0,
    namespace,
    kubeconfig: inject("kubeconfig"),
    jwtSecret: secret,
    allowLoopbackTargets: false,
    // The node hooks need the Gateway CRD, which not every API test file installs.
    nodeHooks: false,
    logLevel: "debug",
    logStream: { write: (line: string) => void logs.push(line) },
    ...extra,
    delivery: {
      store: { backend: "sqlite", file: path.join(dir, "delivery.sqlite") },
      egress: "loopback-only",
      ...extra.delivery,
    },
  }).catch((err: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  return {
    server,
    url: server.url,
    secret,
    logs,
    token: (c = {}) =>
      mintToken({
        secret,
        sub: c.sub ?? "alice",
        projectId: c.projectId,
        scope: c.scope,
        ttlSeconds: c.ttlSeconds ?? 600,
      }),
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body; undefined when it is not JSON. */
  json: unknown;
}

export async function call(
  base: string,
  method: string,
  pathAndQuery: string,
  o: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  let body: string | undefined = o.rawBody;
  if (o.body !== undefined) {
    body = JSON.stringify(o.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch(`${base}${pathAndQuery}`, { method, headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** The `errors` of an error answer (asserting its shape). */
export function errorsOf(a: Answer): string[] {
  const e = (a.json as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(e) || e.length === 0 || !e.every((m) => typeof m === "string" && m.length > 0)) {
    throw new Error(`expected {"errors": [...]} with status ${a.status}, got: ${a.text.slice(0, 300)}`);
  }
  return e as string[];
}
