// Webhook semantics over real HTTP and the real control plane: PUT (path id authoritative,
// fields replaced, secret kept/removed/replaced), concurrency, kubectl interoperability, the
// write-only secret, rollback, and JSON errors for every failure.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WEBHOOK_EVENT_KINDS } from "../../src/schema/webhook-events.ts";
import { type Answer, call, errorsOf, installWebhookCrd, startTestApi, type TestApi } from "./api-harness.ts";
import { kubectl, testNamespace } from "./support/cluster.ts";

interface Hook {
  id: string;
  name: string;
  url: string;
  events?: string[];
  streamId?: string;
  createdAt: number;
  projectId: string;
  userId: string;
}
interface KubeObj {
  metadata: {
    name: string;
    labels?: Record<string, string>;
    ownerReferences?: { uid: string; kind: string }[];
    uid: string;
  };
  spec?: Record<string, unknown> & { sharedSecretRef?: { name: string; key: string } };
  data?: Record<string, string>;
}

let ns: Awaited<ReturnType<typeof testNamespace>>;
let api: TestApi;
let token: string;
const answers: Answer[] = []; // every answer, to prove no secret ever left the server
const SECRETS = new Set<string>();

async function req(method: string, path: string, o: Parameters<typeof call>[3] = {}): Promise<Answer> {
  const a = await call(api.url, method, path, { token, ...o });
  answers.push(a);
  return a;
}

function secret(label: string): string {
  const s = `TOP-SECRET-${label}-${Math.random().toString(36).slice(2)}`;
  SECRETS.add(s);
  return s;
}

async function create(body: Record<string, unknown>): Promise<Hook> {
  const a = await req("POST", "/webhook", { body });
  expect(a.status, a.text).toBe(200);
  return a.json as Hook;
}

async function webhookResource(id: string): Promise<KubeObj> {
  return JSON.parse(await kubectl(["get", "webhooks.livepeer.org", id, "-n", ns.name, "-o", "json"]));
}

async function secretValue(name: string): Promise<string | undefined> {
  const list = JSON.parse(await kubectl(["get", "secrets", "-n", ns.name, "-o", "json"])) as {
    items: KubeObj[];
  };
  const s = list.items.find((i) => i.metadata.name === name);
  const b64 = s?.data?.sharedSecret;
  return b64 === undefined ? undefined : Buffer.from(b64, "base64").toString("utf8");
}

async function apiSecrets(webhookId: string): Promise<KubeObj[]> {
  const list = JSON.parse(
    await kubectl(["get", "secrets", "-n", ns.name, "-l", `livepeer.org/webhook=${webhookId}`, "-o", "json"]),
  ) as { items: KubeObj[] };
  return list.items;
}

beforeAll(async () => {
  await installWebhookCrd();
  ns = await testNamespace("api-webhooks");
  api = await startTestApi(ns.name);
  token = await api.token({ sub: "alice" });
});

afterAll(async () => {
  await api?.close();
  await ns?.remove();
});

describe("create", () => {
  it("stores the secret in a Secret owned by the Webhook, labelled, referenced, never in the CR", async () => {
    const value = secret("create");
    const hook = await create({ name: "c", url: "https://example.com/c", sharedSecret: value });
    const cr = await webhookResource(hook.id);
    expect(cr.metadata.labels).toMatchObject({
      "livepeer.org/user-id": "alice",
      "livepeer.org/project-id": "default",
    });
    const ref = cr.spec?.sharedSecretRef;
    expect(ref?.key).toBe("sharedSecret");
    expect(JSON.stringify(cr)).not.toContain(value);
    const [s] = await apiSecrets(hook.id);
    expect(s?.metadata.name).toBe(ref?.name);
    expect(s?.metadata.labels?.["livepeer.org/managed-by"]).toBe("livepeer-operator-api");
    expect(s?.metadata.ownerReferences?.[0]).toMatchObject({ kind: "Webhook", uid: cr.metadata.uid });
    expect(await secretValue(ref!.name)).toBe(value);
  });

  it("returns exactly the spec's fields and keeps createdAt exact", async () => {
    const before = Date.now();
    const hook = await create({
      name: "f",
      url: "https://example.com/f",
      events: ["stream.idle"],
      streamId: "s",
    });
    expect(Object.keys(hook).sort()).toEqual(
      ["createdAt", "events", "id", "kind", "name", "projectId", "streamId", "url", "userId"].sort(),
    );
    expect(hook.createdAt).toBeGreaterThanOrEqual(before);
    const cr = await webhookResource(hook.id);
    expect(cr.metadata).toMatchObject({ name: hook.id });
    expect(
      (cr.metadata as { annotations?: Record<string, string> }).annotations?.["livepeer.org/created-at-ms"],
    ).toBe(String(hook.createdAt));
  });

  it("keeps absent events (all kinds) apart from [] (none)", async () => {
    const all = await create({ name: "all", url: "https://example.com/a" });
    const none = await create({ name: "none", url: "https://example.com/n", events: [] });
    expect(all.events).toBeUndefined();
    expect(none.events).toEqual([]);
    expect((await req("GET", `/webhook/${none.id}`)).json).toMatchObject({ events: [] });
  });
});

describe("PUT /webhook/{id}", () => {
  it("takes the id from the path: a different body id is a 422, the same or none is fine", async () => {
    const a = await create({ name: "a", url: "https://example.com/a" });
    const b = await create({ name: "b", url: "https://example.com/b" });
    const wrong = await req("PUT", `/webhook/${a.id}`, {
      body: { id: b.id, name: "x", url: "https://example.com/x" },
    });
    expect(wrong.status, wrong.text).toBe(422);
    expect(errorsOf(wrong)[0]).toMatch(/'id'.*differs from the id in the path/);
    expect(((await req("GET", `/webhook/${b.id}`)).json as Hook).name).toBe("b");
    const same = await req("PUT", `/webhook/${a.id}`, {
      body: { id: a.id, name: "a2", url: "https://example.com/a" },
    });
    expect(same.status, same.text).toBe(200);
    const none = await req("PUT", `/webhook/${a.id}`, { body: { name: "a3", url: "https://example.com/a" } });
    expect((none.json as Hook).name).toBe("a3");
  });

  it("replaces every writable field and reads back right away", async () => {
    const h = await create({
      name: "r",
      url: "https://example.com/r",
      events: ["stream.started"],
      streamId: "s1",
    });
    const put = await req("PUT", `/webhook/${h.id}`, { body: { name: "r2", url: "https://example.org/r2" } });
    expect(put.status, put.text).toBe(200);
    const got = (await req("GET", `/webhook/${h.id}`)).json as Hook;
    expect(got).toEqual(put.json);
    expect(got).toMatchObject({ name: "r2", url: "https://example.org/r2", createdAt: h.createdAt });
    expect(got.events).toBeUndefined();
    expect(got.streamId).toBeUndefined();
  });

  it("accepts what GET returned, read-only fields included", async () => {
    const h = await create({ name: "echo", url: "https://example.com/e", events: ["asset.ready"] });
    const read = (await req("GET", `/webhook/${h.id}`)).json as Record<string, unknown>;
    const put = await req("PUT", `/webhook/${h.id}`, {
      body: { ...read, createdAt: 1, userId: "mallory", kind: "x" },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.json).toEqual(read);
  });

  it("keeps the secret when omitted, removes it with '', replaces it with a new value", async () => {
    const first = secret("first");
    const h = await create({ name: "s", url: "https://example.com/s", sharedSecret: first });
    const ref0 = (await webhookResource(h.id)).spec?.sharedSecretRef;

    await req("PUT", `/webhook/${h.id}`, { body: { name: "s", url: "https://example.com/s2" } });
    const ref1 = (await webhookResource(h.id)).spec?.sharedSecretRef;
    expect(ref1).toEqual(ref0);
    expect(await secretValue(ref1!.name)).toBe(first);

    const second = secret("second");
    await req("PUT", `/webhook/${h.id}`, {
      body: { name: "s", url: "https://example.com/s2", sharedSecret: second },
    });
    const ref2 = (await webhookResource(h.id)).spec?.sharedSecretRef;
    expect(ref2?.name).not.toBe(ref0?.name);
    expect(await secretValue(ref2!.name)).toBe(second);
    expect((await apiSecrets(h.id)).map((s) => s.metadata.name)).toEqual([ref2!.name]);

    await req("PUT", `/webhook/${h.id}`, {
      body: { name: "s", url: "https://example.com/s2", sharedSecret: "" },
    });
    expect((await webhookResource(h.id)).spec?.sharedSecretRef).toBeUndefined();
    expect(await apiSecrets(h.id)).toEqual([]);
  });

  it("answers 405 (Allow: GET, HEAD, POST) saying the id was not provided for PUT and DELETE on /webhook", async () => {
    for (const [method, path] of [
      ["PUT", "/webhook/"],
      ["PUT", "/webhook"],
      ["DELETE", "/webhook"],
    ] as const) {
      const a = await req(method, path, { body: { name: "x", url: "https://example.com" } });
      expect(a.status, a.text).toBe(405);
      expect(a.headers.get("allow")).toBe("GET, HEAD, POST");
      expect(errorsOf(a)[0]).toMatch(/id not provided/);
    }
  });

  it("answers 404 for an unknown id and names unknown properties (422)", async () => {
    const missing = await req("PUT", "/webhook/00000000-0000-4000-8000-000000000000", {
      body: { name: "x", url: "https://example.com" },
    });
    expect(missing.status).toBe(404);
    const h = await create({ name: "u", url: "https://example.com/u" });
    const unknown = await req("PUT", `/webhook/${h.id}`, {
      body: { name: "x", url: "https://example.com", secret: "oops" },
    });
    expect(unknown.status).toBe(422);
    expect(errorsOf(unknown)[0]).toMatch(/unknown property 'secret'/);
  });

  it("50 concurrent PUTs: the final state is exactly one of the writes, secret included", async () => {
    const h = await create({ name: "race", url: "https://example.com/race", sharedSecret: secret("race") });
    const writes = Array.from({ length: 50 }, (_, i) => ({
      name: `w${i}`,
      url: `https://example.com/w/${i}`,
      events: [WEBHOOK_EVENT_KINDS[i % WEBHOOK_EVENT_KINDS.length]!],
      streamId: `stream-${i}`,
      sharedSecret: secret(`race-${i}`),
    }));
    const results = await Promise.all(writes.map((body) => req("PUT", `/webhook/${h.id}`, { body })));
    const serverErrors = () =>
      api.logs
        .filter((l) => /"level":50|error/i.test(l))
        .slice(-5)
        .join("\n");
    for (const r of results) expect([200, 409], `${r.text}\n${serverErrors()}`).toContain(r.status);
    const succeeded = writes.filter((_, i) => results[i]!.status === 200);
    expect(succeeded.length).toBeGreaterThan(0);

    const final = (await req("GET", `/webhook/${h.id}`)).json as Hook;
    const i = Number(final.name.slice(1));
    const { sharedSecret, ...visible } = writes[i]!;
    expect(final).toMatchObject(visible);
    expect(succeeded.map((w) => w.name)).toContain(final.name);
    const cr = await webhookResource(h.id);
    expect(cr.spec).toMatchObject(visible);
    expect(await secretValue(cr.spec!.sharedSecretRef!.name)).toBe(sharedSecret);
    // Replaced secrets are cleaned up: only the referenced one is left.
    expect((await apiSecrets(h.id)).map((s) => s.metadata.name)).toEqual([cr.spec!.sharedSecretRef!.name]);
  });
});

describe("listing", () => {
  it("pages newest first with Link rel=next, counts with X-Total-Count, and filters", async () => {
    const lister = await api.token({ sub: "lister" });
    const made: Hook[] = [];
    for (let i = 0; i < 5; i++) {
      const a = await req("POST", "/webhook", {
        token: lister,
        body: {
          name: `page ${i}${i % 2 ? " odd" : ""}`,
          url: `https://example.com/p/${i}`,
          streamId: `s${i % 2}`,
        },
      });
      made.push(a.json as Hook);
    }
    const seen: Hook[] = [];
    let next: string | undefined = `${api.url}/webhook?limit=2&count=true`;
    let pages = 0;
    while (next) {
      const a = await call(next, "GET", "", { token: lister });
      answers.push(a);
      expect(a.status, a.text).toBe(200);
      expect(a.headers.get("x-total-count")).toBe("5");
      seen.push(...(a.json as Hook[]));
      next = /<([^>]+)>;\s*rel="next"/.exec(a.headers.get("link") ?? "")?.[1];
      pages++;
    }
    expect(pages).toBe(3);
    const expected = [...made].sort((x, y) => y.createdAt - x.createdAt || (x.id < y.id ? -1 : 1));
    expect(seen.map((h) => h.id)).toEqual(expected.map((h) => h.id));

    const json = await req("GET", `/webhook?filters=${encodeURIComponent('[{"id":"name","value":"ODD"}]')}`, {
      token: lister,
    });
    expect((json.json as Hook[]).map((h) => h.name).sort()).toEqual(["page 1 odd", "page 3 odd"]);
    const simple = await req("GET", `/webhook?streamId=s0&createdAt[gte]=${made[2]!.createdAt}`, {
      token: lister,
    });
    expect((simple.json as Hook[]).map((h) => h.name).sort()).toEqual(["page 2", "page 4"]);
  });
});

describe("documents and probes", () => {
  it("serves openapi.json under the prefix and the probes at the root, without a token", async () => {
    const doc = await call(api.url, "GET", "/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.json).toMatchObject({ info: { version: "1.0.0" }, security: [{ apiKey: [] }] });
    const root = api.url.replace(/\/api$/, "");
    expect((await call(root, "GET", "/healthz")).status).toBe(200);
    expect((await call(root, "GET", "/readyz")).json).toEqual({ status: "ready" });
  });
});

describe("kubectl interoperability", () => {
  it("shows a kubectl-created Webhook in the API, and an API-created one in kubectl get wh", async () => {
    const userSecret = secret("kubectl");
    await kubectl(
      ["apply", "-n", ns.name, "-f", "-"],
      JSON.stringify({
        apiVersion: "v1",
        kind: "List",
        items: [
          {
            apiVersion: "v1",
            kind: "Secret",
            metadata: { name: "hand-made-secret" },
            stringData: { signing: userSecret },
          },
          {
            apiVersion: "livepeer.org/v1alpha1",
            kind: "Webhook",
            metadata: {
              name: "hand-made",
              labels: { "livepeer.org/user-id": "alice", "livepeer.org/project-id": "default" },
            },
            spec: {
              name: "from kubectl",
              url: "https://example.com/kubectl",
              events: ["stream.started"],
              sharedSecretRef: { name: "hand-made-secret", key: "signing" },
            },
          },
        ],
      }),
    );
    const deadline = Date.now() + 10_000;
    let got: Answer;
    do got = await req("GET", "/webhook/hand-made");
    while (got.status === 404 && Date.now() < deadline);
    expect(got.status, got.text).toBe(200);
    expect(got.json).toMatchObject({
      id: "hand-made",
      name: "from kubectl",
      userId: "alice",
      projectId: "default",
    });
    expect(((await req("GET", "/webhook?limit=1000")).json as Hook[]).map((w) => w.id)).toContain(
      "hand-made",
    );

    const mine = await create({ name: "for kubectl", url: "https://example.com/k" });
    const table = await kubectl(["get", "wh", "-n", ns.name]);
    expect(table).toContain(mine.id);
    expect(table).toContain("for kubectl");

    // Deleting it through the API leaves the user's own Secret alone.
    expect((await req("DELETE", "/webhook/hand-made")).status).toBe(200);
    expect(await kubectl(["get", "secret", "hand-made-secret", "-n", ns.name, "-o", "name"])).toContain(
      "hand-made-secret",
    );
  });
});

describe("errors", () => {
  it("answers every failure with JSON errors", async () => {
    const cases: [string, string, Parameters<typeof call>[3], number][] = [
      ["POST", "/webhook", { rawBody: "{not json", headers: { "content-type": "application/json" } }, 400],
      [
        "POST",
        "/webhook",
        { rawBody: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } },
        415,
      ],
      ["POST", "/webhook", { rawBody: "{}", headers: { "content-type": "text/plain" } }, 415],
      ["POST", "/webhook", { body: { name: "x", url: "https://e.com", pad: "x".repeat(70_000) } }, 413],
      ["POST", "/webhook", { body: { name: "x", url: "http://10.0.0.1/" } }, 422],
      ["GET", "/webhook/nope", {}, 404],
      ["GET", "/nothing-here", {}, 404],
      ["PATCH", "/webhook/x", { body: {} }, 405],
      ["GET", "/webhook?limit=5000", {}, 422],
      ["GET", "/webhook", { token: "" }, 401],
    ];
    for (const [method, path, o, status] of cases) {
      const a = await req(method, path, o);
      expect(a.status, `${method} ${path}: ${a.text}`).toBe(status);
      expect(a.headers.get("content-type")).toMatch(/^application\/json/);
      expect(errorsOf(a).length).toBeGreaterThan(0);
    }
  });

  it("rate-limits per token with Retry-After", async () => {
    const limited = await startTestApi(ns.name, { rateLimitPerMinute: 3 });
    try {
      const [t1, t2] = await Promise.all([limited.token({ sub: "r1" }), limited.token({ sub: "r2" })]);
      const statuses = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await call(limited.url, "GET", "/webhook", { token: t1 })).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await call(limited.url, "GET", "/webhook", { token: t1 });
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(errorsOf(refused)[0]).toMatch(/rate limit/);
      expect((await call(limited.url, "GET", "/webhook", { token: t2 })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe("rollback", () => {
  it("deletes the Webhook again when its Secret cannot be created", async () => {
    await kubectl(
      ["apply", "-n", ns.name, "-f", "-"],
      JSON.stringify({
        apiVersion: "v1",
        kind: "ResourceQuota",
        metadata: { name: "no-more-secrets" },
        spec: { hard: { "count/secrets": "0" } },
      }),
    );
    try {
      // The quota only bites once the controller has computed its status.
      const deadline = Date.now() + 20_000;
      let a: Answer;
      do {
        a = await req("POST", "/webhook", {
          body: { name: "doomed", url: "https://example.com/d", sharedSecret: secret("q") },
        });
        if (a.status === 200) await req("DELETE", `/webhook/${(a.json as Hook).id}`);
      } while (a.status === 200 && Date.now() < deadline);
      expect(a.status, a.text).toBe(500);
      expect(errorsOf(a)[0]).toMatch(/internal error \(request id/);
      const hooks = JSON.parse(await kubectl(["get", "wh", "-n", ns.name, "-o", "json"])) as {
        items: KubeObj[];
      };
      expect(hooks.items.filter((h) => h.spec?.name === "doomed")).toEqual([]);
      const listed = (await req("GET", "/webhook?limit=1000")).json as Hook[];
      expect(listed.filter((h) => h.name === "doomed")).toEqual([]);
    } finally {
      await kubectl(["delete", "resourcequota", "no-more-secrets", "-n", ns.name]);
    }
  });
});

describe("the write-only secret", () => {
  it("never appears in a response, a Webhook resource or the server's log", async () => {
    expect(answers.length).toBeGreaterThan(50);
    for (const a of answers) for (const s of SECRETS) expect(a.text).not.toContain(s);
    const crs = await kubectl(["get", "wh", "-n", ns.name, "-o", "json"]);
    const logs = api.logs.join("");
    expect(logs.length).toBeGreaterThan(0);
    for (const s of SECRETS) {
      if (s.includes("kubectl")) continue; // the user's own Secret, not written by us
      expect(crs).not.toContain(s);
      expect(logs).not.toContain(s);
    }
    expect(logs).not.toContain(token);
  });
});
