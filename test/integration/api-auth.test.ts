// Bearer-token authentication and tenant isolation of the webhook API, over real HTTP against
// the real control plane.
import { randomBytes } from "node:crypto";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, errorsOf, installWebhookCrd, startTestApi, type TestApi } from "./api-harness.ts";
import { testNamespace } from "./support/cluster.ts";

let ns: Awaited<ReturnType<typeof testNamespace>>;
let api: TestApi;
let strict: TestApi; // requires issuer and audience
let keyed: TestApi; // public keys only (ES256)
let es256: Awaited<ReturnType<typeof generateKeyPair>>;
const body = { name: "auth hook", url: "https://example.com/hooks" };

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
const nowS = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  await installWebhookCrd();
  ns = await testNamespace("api-auth");
  es256 = await generateKeyPair("ES256", { extractable: true });
  const jwk = { ...(await exportJWK(es256.publicKey)), kid: "k1" };
  [api, strict, keyed] = await Promise.all([
    startTestApi(ns.name),
    startTestApi(ns.name, { jwtIssuer: "https://issuer.test", jwtAudience: "livepeer-api" }),
    startTestApi(ns.name, { jwtSecret: undefined, jwks: { keys: [jwk] } }),
  ]);
});

afterAll(async () => {
  await Promise.all([api?.close(), strict?.close(), keyed?.close()]);
  await ns?.remove();
});

async function expect401(base: string, authorization: string | undefined, message: RegExp): Promise<void> {
  const a = await call(base, "GET", "/webhook", {
    headers: authorization === undefined ? {} : { authorization },
  });
  expect(a.status, a.text).toBe(401);
  expect(errorsOf(a).join(" ")).toMatch(message);
  expect(a.headers.get("www-authenticate")).toMatch(/^Bearer /);
}

describe("authentication", () => {
  it("refuses a request without Authorization", async () => {
    await expect401(api.url, undefined, /missing Authorization/);
  });

  it.each([
    ["Basic YWxpY2U6cHc=", /Bearer/],
    ["Bearer", /Bearer/],
    ["Bearer not-a-jwt", /not a valid signed JWT/],
    ["Bearer a.b.c", /not a valid signed JWT/],
    ["Bearer a b", /Bearer/],
  ])("refuses the malformed header %j", async (header, message) => {
    await expect401(api.url, header, message);
  });

  it("refuses an expired token", async () => {
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("alice")
      .setExpirationTime(nowS() - 3600)
      .sign(api.secret);
    await expect401(api.url, `Bearer ${expired}`, /expired/);
  });

  it("refuses a token without an expiry", async () => {
    const forever = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("alice")
      .sign(api.secret);
    await expect401(api.url, `Bearer ${forever}`, /exp/);
  });

  it("refuses a token signed with another key", async () => {
    const other = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("alice")
      .setExpirationTime("10m")
      .sign(randomBytes(48));
    await expect401(api.url, `Bearer ${other}`, /signature/);
  });

  it("refuses alg none", async () => {
    const unsigned = `${b64({ alg: "none", typ: "JWT" })}.${b64({ sub: "alice", exp: nowS() + 600, scope: "admin" })}.`;
    await expect401(api.url, `Bearer ${unsigned}`, /alg none/);
    await expect401(keyed.url, `Bearer ${unsigned}`, /alg none/);
  });

  it("refuses a token without sub", async () => {
    const anonymous = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setExpirationTime("10m")
      .sign(api.secret);
    await expect401(api.url, `Bearer ${anonymous}`, /sub/);
  });

  it("checks audience and issuer when configured", async () => {
    const sign = (aud: string | undefined, iss: string | undefined) => {
      const t = new SignJWT({})
        .setProtectedHeader({ alg: "HS256" })
        .setSubject("alice")
        .setExpirationTime("10m");
      if (aud) t.setAudience(aud);
      if (iss) t.setIssuer(iss);
      return t.sign(strict.secret);
    };
    await expect401(
      strict.url,
      `Bearer ${await sign("someone-else", "https://issuer.test")}`,
      /audience.*livepeer-api/,
    );
    await expect401(strict.url, `Bearer ${await sign(undefined, "https://issuer.test")}`, /aud/);
    await expect401(strict.url, `Bearer ${await sign("livepeer-api", "https://evil.test")}`, /issuer/);
    const ok = await call(strict.url, "GET", "/webhook", {
      token: await sign("livepeer-api", "https://issuer.test"),
    });
    expect(ok.status, ok.text).toBe(200);
  });

  it("verifies public-key tokens and refuses algorithm confusion (HS256 keyed with the public key)", async () => {
    const good = await new SignJWT({})
      .setProtectedHeader({ alg: "ES256", kid: "k1" })
      .setSubject("alice")
      .setExpirationTime("10m")
      .sign(es256.privateKey);
    expect((await call(keyed.url, "GET", "/webhook", { token: good })).status).toBe(200);

    const publicJwk = JSON.stringify(await exportJWK(es256.publicKey));
    const confused = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256", kid: "k1" })
      .setSubject("alice")
      .setExpirationTime("10m")
      .sign(new TextEncoder().encode(publicJwk.padEnd(64, " ")));
    await expect401(keyed.url, `Bearer ${confused}`, /algorithm HS256 is not accepted/);

    // A token for the HMAC server is no good on the public-key server either.
    await expect401(keyed.url, `Bearer ${await api.token()}`, /algorithm HS256 is not accepted/);
  });
});

describe("tenant isolation", () => {
  let aliceP1: string;
  let aliceP2: string;
  let bob: string;
  let admin: string;
  let id: string;

  beforeAll(async () => {
    [aliceP1, aliceP2, bob, admin] = await Promise.all([
      api.token({ sub: "alice", projectId: "p1" }),
      api.token({ sub: "alice", projectId: "p2" }),
      api.token({ sub: "bob", projectId: "p1" }),
      api.token({ sub: "root", scope: "admin" }),
    ]);
    const created = await call(api.url, "POST", "/webhook", { token: aliceP1, body });
    expect(created.status, created.text).toBe(200);
    id = (created.json as { id: string }).id;
  });

  it("answers 404 for another user's and another project's webhook, for every method", async () => {
    for (const token of [bob, aliceP2]) {
      for (const [method, payload] of [
        ["GET", undefined],
        ["PUT", body],
        ["DELETE", undefined],
      ] as const) {
        const a = await call(api.url, method, `/webhook/${id}`, { token, body: payload });
        expect(a.status, `${method}: ${a.text}`).toBe(404);
        expect(errorsOf(a)[0]).toMatch(/not found/);
      }
      const list = await call(api.url, "GET", "/webhook", { token });
      expect((list.json as { id: string }[]).map((w) => w.id)).not.toContain(id);
    }
    expect((await call(api.url, "GET", `/webhook/${id}`, { token: aliceP1 })).status).toBe(200);
  });

  it("lets an admin see and change every tenant's webhook", async () => {
    const list = await call(api.url, "GET", "/webhook?limit=1000", { token: admin });
    expect((list.json as { id: string }[]).map((w) => w.id)).toContain(id);
    const got = await call(api.url, "GET", `/webhook/${id}`, { token: admin });
    expect(got.json).toMatchObject({ userId: "alice", projectId: "p1" });
    const put = await call(api.url, "PUT", `/webhook/${id}`, {
      token: admin,
      body: { ...body, name: "by admin" },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.json).toMatchObject({ name: "by admin", userId: "alice", projectId: "p1" });
  });

  it("answers 403 when a non-admin names another project", async () => {
    const post = await call(api.url, "POST", "/webhook", {
      token: aliceP1,
      body: { ...body, projectId: "p2" },
    });
    expect(post.status, post.text).toBe(403);
    expect(errorsOf(post)[0]).toMatch(/projectId "p2" is not the project of your token/);
    const put = await call(api.url, "PUT", `/webhook/${id}`, {
      token: aliceP1,
      body: { ...body, projectId: "p2" },
    });
    expect(put.status, put.text).toBe(403);
    const same = await call(api.url, "POST", "/webhook", {
      token: aliceP1,
      body: { ...body, projectId: "p1" },
    });
    expect(same.status, same.text).toBe(200);
  });

  it("lets an admin create in any project, owned by the admin", async () => {
    const a = await call(api.url, "POST", "/webhook", {
      token: admin,
      body: { ...body, projectId: "elsewhere" },
    });
    expect(a.status, a.text).toBe(200);
    expect(a.json).toMatchObject({ userId: "root", projectId: "elsewhere" });
  });
});
