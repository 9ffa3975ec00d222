// The served OpenAPI document is the API's contract: requests generated from it alone (as a client
// generated from the document, or a schema-driven fuzzer, would send them) must be answered as the
// document says - every documented query on every listing answers 200, every body the document
// calls valid is accepted, and the answer carries back what was sent.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PROJECT } from "../../src/api/auth/claims.ts";
import { call, errorsOf, installWebhookCrd, startTestApi, type TestApi } from "./api-harness.ts";
import { testNamespace } from "./support/cluster.ts";
import { arbitraryFor, type SchemaContext } from "./support/openapi-arbitrary.ts";

type Node = Record<string, unknown>;

const RUNS = Number(process.env.API_OPENAPI_RUNS ?? 60);

let ns: Awaited<ReturnType<typeof testNamespace>>;
let api: TestApi;
let admin: string;
let doc: Node;
let ctx: SchemaContext;
let webhookId: string;

beforeAll(async () => {
  await installWebhookCrd();
  ns = await testNamespace("api-openapi");
  api = await startTestApi(ns.name, { logLevel: "warn" });
  admin = await api.token({ sub: "root", scope: "admin events:write" });
  const served = await call(api.url, "GET", "/openapi.json", { token: admin });
  expect(served.status, served.text).toBe(200);
  doc = served.json as Node;
  ctx = { components: (doc.components as { schemas: Record<string, Node> }).schemas };
  const created = await call(api.url, "POST", "/webhook", {
    token: admin,
    body: { name: "seed", url: "https://example.com/seed" },
  });
  expect(created.status, created.text).toBe(200);
  webhookId = (created.json as { id: string }).id;
});

afterAll(async () => {
  await api?.close();
  await ns?.remove();
});

function operation(path: string, method: string): Node {
  const op = (doc.paths as Record<string, Record<string, Node>>)[path]?.[method];
  if (!op) throw new Error(`the document has no ${method.toUpperCase()} ${path}`);
  return op;
}

/** The documented query parameters as one arbitrary query string (opaque cursors left out). */
function queryArb(op: Node): fc.Arbitrary<string> {
  const params = ((op.parameters as Node[] | undefined) ?? []).filter(
    (p) => p.in === "query" && p.name !== "cursor",
  );
  const entries = params.map((p) => {
    const content = (p.content as Record<string, Node> | undefined)?.["application/json"];
    const value = arbitraryFor((content?.schema ?? p.schema) as Node, ctx).map((v) =>
      content || typeof v === "object" ? JSON.stringify(v) : String(v),
    );
    return [String(p.name), value] as const;
  });
  return fc
    .record(Object.fromEntries(entries), { requiredKeys: [] })
    .map((q) => new URLSearchParams(q as Record<string, string>).toString());
}

/** Keys the document's description refuses anywhere in a body (`__proto__`, `constructor.prototype`). */
function hasRefusedKey(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  return Object.entries(value).some(
    ([k, v]) =>
      k === "__proto__" ||
      (k === "constructor" && typeof v === "object" && v !== null && "prototype" in v) ||
      hasRefusedKey(v),
  );
}

function bodyArb(op: Node): fc.Arbitrary<unknown> {
  const content = ((op.requestBody as Node).content as Record<string, Node>)["application/json"]!;
  return arbitraryFor(content.schema as Node, ctx).filter((b) => !hasRefusedKey(b));
}

describe("requests generated from the served OpenAPI document", () => {
  it.each([
    ["/webhook", "/webhook"],
    ["/webhook/{id}/log", "/webhook/{webhook}/log"],
  ])(`every documented query of GET %s answers 200 (${RUNS} runs)`, async (docPath, template) => {
    await fc.assert(
      fc.asyncProperty(queryArb(operation(docPath, "get")), async (query) => {
        const path = template.replace("{webhook}", webhookId);
        const a = await call(api.url, "GET", `${path}?${query}`, { token: admin });
        expect(a.status, `GET ${path}?${query}: ${a.text}`).toBe(200);
        expect(Array.isArray(a.json)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it(`every webhook body the document calls valid is created and comes back as sent (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb(operation("/webhook", "post")), async (body) => {
        const sent = body as Record<string, unknown>;
        const a = await call(api.url, "POST", "/webhook", { token: admin, body: sent });
        expect(a.status, `POST /webhook ${JSON.stringify(sent)}: ${a.text}`).toBe(200);
        const got = a.json as Record<string, unknown>;
        for (const k of ["name", "url"]) expect(got[k], k).toEqual(sent[k]);
        // The document says an empty streamId means every stream, as absent does.
        expect(got.streamId).toBe(sent.streamId || undefined);
        // The document says an empty projectId means the token's project (the admin's: the default one).
        expect(got.projectId).toBe(sent.projectId || DEFAULT_PROJECT);
        // The document says a kind listed twice is kept once.
        if (Array.isArray(sent.events)) expect(got.events).toEqual([...new Set(sent.events)]);
        expect(got).not.toHaveProperty("sharedSecret");
      }),
      { numRuns: RUNS },
    );
  });

  it(`every event body the document calls valid is recorded: 202 with its id (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb(operation("/events", "post")), async (body) => {
        const sent = body as { id?: string };
        const a = await call(api.url, "POST", "/events", { token: admin, body: sent });
        expect(a.status, `POST /events ${JSON.stringify(sent)}: ${a.text}`).toBe(202);
        const id = (a.json as { id: string }).id;
        expect(typeof id).toBe("string");
        if (sent.id !== undefined) expect(id).toBe(sent.id);
      }),
      { numRuns: RUNS },
    );
  });

  it("refuses a body with a key the document refuses, naming it and the fix", async () => {
    const a = await call(api.url, "POST", "/events", {
      token: admin,
      rawBody: '{"event":"stream.started","payload":{"":{"__proto__":false}}}',
      headers: { "content-type": "application/json" },
    });
    expect(a.status, a.text).toBe(400);
    expect(errorsOf(a)).toEqual([expect.stringMatching(/key 'payload\.\.__proto__'.*rename the key/)]);
  });

  it("answers methods the document does not list on a path with 405, Allow and {errors}, before reading any body", async () => {
    for (const [method, path, o] of [
      ["PUT", "/webhook", { body: {} }],
      ["DELETE", "/webhook", { body: {} }],
      ["PATCH", `/webhook/${webhookId}`, { body: {} }],
      ["POST", `/webhook/${webhookId}/log`, { body: {} }],
      // An RFC 9110 registry method, a WebDAV one, and a bodiless DELETE naming JSON (was 400).
      ["QUERY", "/webhook", {}],
      ["PROPFIND", `/webhook/${webhookId}/log`, {}],
      ["DELETE", `/webhook/${webhookId}/log`, { headers: { "content-type": "application/json" } }],
      ["GET", "/events", {}],
      ["POST", "/openapi.json", {}],
    ] as const) {
      const a = await call(api.url, method, path, { token: admin, ...o });
      expect(a.status, `${method} ${path}: ${a.text}`).toBe(405);
      const documented = Object.keys(
        ((doc.paths as Record<string, Node>)[path.replace(webhookId, "{id}")] as Node | undefined) ?? {
          get: {},
        },
      ).map((m) => m.toUpperCase());
      // HEAD is served wherever GET is (and listed), though the document leaves it implicit.
      const expected = documented.includes("GET") ? [...documented, "HEAD"] : documented;
      expect(a.headers.get("allow")?.split(", ").sort(), `${method} ${path}`).toEqual(expected.sort());
      // PUT and DELETE on /webhook say the missing id is the fix.
      expect(errorsOf(a)[0]).toMatch(
        new RegExp(`^${method} is not supported|${method} needs /webhook/\\{id\\}`),
      );
    }
  });

  it("answers a bodiless operation sent with an empty body whatever its Content-Type", async () => {
    for (const contentType of ["application/json", "text/plain", undefined]) {
      const a = await call(api.url, "POST", `/webhook/${webhookId}/log/no-such-entry/resend`, {
        token: admin,
        headers: contentType ? { "content-type": contentType } : {},
      });
      // The route ran: the unknown log entry is the only thing wrong.
      expect(a.status, `${contentType}: ${a.text}`).toBe(404);
      expect(errorsOf(a)[0]).toMatch(/log entry "no-such-entry" not found/);
    }
  });

  it("answers every cursor of the document's form on both listings, and refuses others naming the form", async () => {
    const pattern = (op: Node) =>
      new RegExp(
        (((op.parameters as Node[]).find((p) => p.name === "cursor") as Node).schema as { pattern: string })
          .pattern,
      );
    for (const path of ["/webhook", "/webhook/{id}/log"]) {
      const form = pattern(operation(path, "get"));
      const url = path.replace("{id}", webhookId);
      await fc.assert(
        fc.asyncProperty(fc.stringMatching(form), async (cursor) => {
          const a = await call(api.url, "GET", `${url}?cursor=${encodeURIComponent(cursor)}`, {
            token: admin,
          });
          expect(a.status, `${url} cursor=${cursor}: ${a.text}`).toBe(200);
        }),
        { numRuns: 20 },
      );
      for (const cursor of ["WzE3MDAwMDAwMDAwMDAsImEiXQ", "12_ABC", "x"]) {
        expect(form.test(cursor)).toBe(false);
        const a = await call(api.url, "GET", `${url}?cursor=${cursor}`, { token: admin });
        expect(a.status, a.text).toBe(422);
        expect(errorsOf(a)[0]).toMatch(/'cursor' must look like <createdAt ms>_<id>/);
      }
    }
  });
});
