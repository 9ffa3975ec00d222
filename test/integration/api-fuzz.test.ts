// Property-based fuzzing of the webhook API over real HTTP: random methods, paths, query
// strings, headers and bodies on every route. Whatever is sent: never a 5xx, every error is
// JSON `{errors: [...]}`, a rejected request stores nothing (webhooks and Secrets unchanged),
// and a secret sent in a body never comes back.
import { CoreV1Api } from "@kubernetes/client-node";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../../src/dev/cluster/process.ts";
import { WEBHOOK_EVENT_KINDS } from "../../src/schema/webhook-events.ts";
import { type Answer, call, errorsOf, installWebhookCrd, startTestApi, type TestApi } from "./api-harness.ts";
import { kubeConfig, testNamespace } from "./support/cluster.ts";

const RUNS = Number(process.env.API_FUZZ_RUNS ?? 250);

let ns: Awaited<ReturnType<typeof testNamespace>>;
let api: TestApi;
let core: CoreV1Api;
let user: string;
let other: string;
let admin: string;
let seeded: string;

beforeAll(async () => {
  await installWebhookCrd();
  ns = await testNamespace("api-fuzz");
  api = await startTestApi(ns.name, { logLevel: "warn" });
  core = kubeConfig().makeApiClient(CoreV1Api);
  [user, other, admin] = await Promise.all([
    api.token({ sub: "fuzzer", projectId: "p" }),
    api.token({ sub: "someone-else" }),
    api.token({ sub: "root", scope: "admin" }),
  ]);
  const created = await call(api.url, "POST", "/webhook", {
    token: user,
    body: { name: "seed", url: "https://example.com/seed", sharedSecret: "seed-secret-value" },
  });
  expect(created.status, created.text).toBe(200);
  seeded = (created.json as { id: string }).id;
});

afterAll(async () => {
  await api?.close();
  await ns?.remove();
});

/**
 * Everything a request could have changed: the API's view of all webhooks and the Secrets.
 * Secrets of webhooks already deleted are left out: the garbage collector removes them
 * asynchronously, in the middle of later requests.
 */
async function snapshot(): Promise<string> {
  const hooks = await call(api.url, "GET", "/webhook?limit=1000", { token: admin });
  const ids = new Set((hooks.json as { id: string }[]).map((h) => h.id));
  const secrets = await core.listNamespacedSecret({ namespace: ns.name });
  const names = secrets.items
    .filter((s) => {
      const owner = s.metadata?.labels?.["livepeer.org/webhook"];
      return owner === undefined || ids.has(owner);
    })
    .map((s) => `${s.metadata?.name}@${s.metadata?.resourceVersion}`)
    .sort();
  return JSON.stringify([hooks.json, names]);
}

const ascii = (max: number) =>
  fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    maxLength: max,
  });
const kinds = fc.constantFrom(...WEBHOOK_EVENT_KINDS);
const anyText = fc.string({ unit: "binary", maxLength: 40 });

const urlArb = fc.oneof(
  fc.webUrl({ validSchemes: ["https", "http"] }),
  fc.constantFrom(
    "https://example.com/h",
    "http://127.0.0.1:8080/x",
    "http://[::1]/",
    "ftp://example.com",
    "https://",
    "http://exa mple.com",
    "HTTP://EXAMPLE.COM",
    `https://example.com/${"a".repeat(3000)}`,
  ),
  anyText,
);

const webhookBody = fc.record(
  {
    name: fc.oneof(ascii(30), anyText, fc.integer(), fc.constant(null), fc.constant("x".repeat(1100))),
    url: fc.oneof(urlArb, fc.integer(), fc.constant(null)),
    events: fc.oneof(
      fc.array(kinds, { maxLength: 5 }),
      fc.array(anyText, { maxLength: 3 }),
      anyText,
      fc.constant(null),
    ),
    sharedSecret: fc.oneof(ascii(40), anyText, fc.constant(""), fc.constant("s".repeat(600)), fc.integer()),
    streamId: fc.oneof(ascii(20), fc.integer()),
    projectId: fc.oneof(fc.constantFrom("p", "other", ""), anyText),
    id: fc.oneof(fc.constant(undefined), fc.uuid(), ascii(10)),
    kind: fc.oneof(fc.constant("webhook"), anyText),
    userId: anyText,
    createdAt: fc.oneof(fc.integer(), anyText),
    status: fc.oneof(fc.object({ maxDepth: 1 }), fc.constant({ lastTriggeredAt: 1 })),
    extra: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: [] },
);

/** Bodies the API should accept: they keep the property honest about successful writes. */
const validBody = fc.record(
  {
    name: ascii(30),
    url: fc.oneof(fc.webUrl({ validSchemes: ["https"] }), fc.constant("https://example.com/hook")),
    events: fc.subarray([...WEBHOOK_EVENT_KINDS], { maxLength: 4 }),
    sharedSecret: ascii(40),
    streamId: ascii(20),
    projectId: fc.constant("p"),
  },
  { requiredKeys: ["name", "url"] },
);

const bodyArb = fc.oneof(
  { weight: 4, arbitrary: validBody.map((b) => JSON.stringify(b)) },
  { weight: 5, arbitrary: webhookBody.map((b) => JSON.stringify(b)) },
  { weight: 2, arbitrary: fc.json({ maxDepth: 2 }) },
  { weight: 1, arbitrary: anyText },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "",
      "{",
      "null",
      "[]",
      '{"__proto__":{"x":1}}',
      `{"name":"${"x".repeat(70_000)}"}`,
    ),
  },
  { weight: 2, arbitrary: fc.constant(undefined) },
);

const idArb = fc.oneof(
  fc.constant(() => seeded),
  fc.uuid().map((u) => () => u),
  ascii(20).map((s) => () => encodeURIComponent(s)),
  fc.constantFrom("", "..", "%2e%2e", "%00", "a%2Fb", "%E2%82", "x".repeat(300)).map((s) => () => s),
);

const pathArb = fc.oneof(
  { weight: 2, arbitrary: fc.constant(() => "/webhook") },
  { weight: 1, arbitrary: fc.constant(() => "/webhook/") },
  { weight: 5, arbitrary: idArb.map((id) => () => `/webhook/${id()}`) },
  { weight: 1, arbitrary: fc.webSegment().map((s) => () => `/${s}`) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom("/openapi.json", "/webhook/x/log", "/webhook//", "/WEBHOOK")
      .map((p) => () => p),
  },
);

const queryArb = fc.oneof(
  fc.constant(""),
  fc
    .dictionary(
      fc.oneof(
        fc.constantFrom("limit", "cursor", "count", "filters", "name", "url", "streamId", "createdAt[gte]"),
        ascii(8),
      ),
      fc.oneof(
        ascii(20),
        fc.integer({ min: -5, max: 5000 }).map(String),
        fc.constantFrom(
          "true",
          "false",
          "eyJhIjoxfQ",
          '[{"id":"name","value":"s"}]',
          '[{"id":"createdAt","value":{"gt":"x"}}]',
        ),
        fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
      ),
      { maxKeys: 3 },
    )
    .map((d) => {
      const q = new URLSearchParams(d).toString();
      return q ? `?${q}` : "";
    }),
);

const authArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant(() => `Bearer ${user}`) },
  { weight: 1, arbitrary: fc.constant(() => `Bearer ${other}`) },
  { weight: 1, arbitrary: fc.constant(() => `Bearer ${admin}`) },
  { weight: 1, arbitrary: ascii(40).map((s) => () => s) },
  { weight: 1, arbitrary: fc.constant(() => undefined) },
);

const contentTypeArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant("application/json") },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "application/json; charset=utf-8",
      "text/plain",
      "application/x-www-form-urlencoded",
      "APPLICATION/JSON",
      "application/json-patch+json",
      "",
    ),
  },
  { weight: 1, arbitrary: ascii(30) },
);

const wildRequest = fc.record({
  method: fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"),
  path: pathArb,
  query: queryArb,
  auth: authArb,
  contentType: contentTypeArb,
  accept: fc.constantFrom(undefined, "application/json", "text/html", "*/*"),
  body: bodyArb,
});

/** Requests a client would plausibly send, mutated a little: most of them succeed. */
const plausibleRequest = fc.record({
  method: fc.constantFrom("GET", "POST", "PUT", "DELETE"),
  path: fc.oneof(
    fc.constant(() => "/webhook"),
    fc.constant(() => `/webhook/${seeded}`),
  ),
  query: fc.oneof({ weight: 4, arbitrary: fc.constant("") }, { weight: 1, arbitrary: queryArb }),
  auth: fc.oneof(
    { weight: 5, arbitrary: fc.constant(() => `Bearer ${user}`) },
    { weight: 1, arbitrary: authArb },
  ),
  contentType: fc.constant("application/json"),
  accept: fc.constant(undefined),
  body: fc.oneof(
    { weight: 4, arbitrary: validBody.map((b) => JSON.stringify(b)) },
    { weight: 1, arbitrary: bodyArb },
  ),
});

const requestArb = fc.oneof(wildRequest, plausibleRequest);

function sentSecret(body: string | undefined): string | undefined {
  try {
    const s = (JSON.parse(body ?? "") as { sharedSecret?: unknown }).sharedSecret;
    return typeof s === "string" && s.length >= 12 ? s : undefined;
  } catch {
    return undefined;
  }
}

function checkAnswer(a: Answer, method: string, secretSent: string | undefined): void {
  expect(a.status, a.text).toBeLessThan(500);
  if (secretSent) expect(a.text).not.toContain(secretSent);
  expect(a.text).not.toContain("sharedSecretRef");
  if (a.status >= 400 && method !== "HEAD") {
    expect(a.headers.get("content-type")).toMatch(/^application\/json/);
    errorsOf(a);
  }
}

describe("fuzzing the webhook API", () => {
  it(`never answers 5xx or non-JSON errors, and stores nothing when it refuses (${RUNS} requests)`, async () => {
    let refused = 0;
    let served = 0;
    await fc.assert(
      fc.asyncProperty(requestArb, async (r) => {
        const before = await snapshot();
        const headers: Record<string, string> = {};
        const authorization = r.auth();
        if (authorization !== undefined) headers.authorization = authorization;
        if (r.contentType) headers["content-type"] = r.contentType;
        if (r.accept) headers.accept = r.accept;
        const body = r.method === "GET" || r.method === "HEAD" ? undefined : r.body;
        const a = await call(api.url, r.method, `${r.path()}${r.query}`, { headers, rawBody: body });
        checkAnswer(a, r.method, sentSecret(body));
        if (a.status >= 400) {
          refused++;
          expect(await snapshot(), `${r.method} ${r.path()} -> ${a.status}`).toBe(before);
        } else {
          served++;
        }
      }),
      { numRuns: RUNS },
    );
    // The generators must reach both sides, or the property proves little.
    expect(refused).toBeGreaterThan(RUNS / 10);
    expect(served).toBeGreaterThan(RUNS / 20);
  });

  it("keeps a webhook intact through rejected PUT bodies, and applies valid ones whole", async () => {
    // Its own webhook: the property above may well have deleted the seeded one.
    const created = await call(api.url, "POST", "/webhook", {
      token: user,
      body: { name: "target", url: "https://example.com/target" },
    });
    const id = (created.json as { id: string }).id;
    let applied = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(webhookBody, validBody), async (b) => {
        const before = (await call(api.url, "GET", `/webhook/${id}`, { token: user })).json;
        const a = await call(api.url, "PUT", `/webhook/${id}`, { token: user, body: b });
        checkAnswer(a, "PUT", sentSecret(JSON.stringify(b)));
        const after = (await call(api.url, "GET", `/webhook/${id}`, { token: user })).json;
        if (a.status >= 400) {
          expect(after).toEqual(before);
        } else {
          applied++;
          expect(after).toEqual(a.json);
        }
      }),
      { numRuns: Math.ceil(RUNS / 2) },
    );
    expect(applied).toBeGreaterThan(RUNS / 10);
  });

  it("leaves no Secret of ours without its Webhook once the garbage collector has run", async () => {
    const orphans = async () => {
      const hooks = (await call(api.url, "GET", "/webhook?limit=1000", { token: admin })).json as {
        id: string;
      }[];
      const ids = new Set(hooks.map((h) => h.id));
      const secrets = await core.listNamespacedSecret({
        namespace: ns.name,
        labelSelector: "livepeer.org/managed-by=livepeer-operator-api",
      });
      return secrets.items
        .map((s) => s.metadata?.labels?.["livepeer.org/webhook"] ?? "")
        .filter((id) => !ids.has(id));
    };
    let left: string[] = [];
    await waitFor(
      "the Secrets of deleted webhooks to be garbage-collected",
      async () => {
        left = await orphans();
        return left.length === 0;
      },
      30_000,
      () => `Secrets without a webhook: ${left.join(", ")}`,
    );
  });
});
