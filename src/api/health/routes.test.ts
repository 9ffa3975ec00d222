import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { healthRoutes } from "./routes.ts";

const health = () => ({ dead: false }) as never;

describe("/readyz: ready once every cache a served route needs has synced", () => {
  it.each<[string, boolean, boolean | undefined, number, string]>([
    ["all synced", true, true, 200, "ready"],
    ["no node hooks served", true, undefined, 200, "ready"],
    ["the webhook cache behind", false, true, 503, "webhook cache"],
    ["the RemoteSigner cache behind", true, false, 503, "RemoteSigner cache"],
  ])("%s", async (_, webhooks, signers, status, says) => {
    const app = Fastify();
    await app.register(healthRoutes, {
      cache: { synced: () => webhooks, health },
      alsoSynced: signers === undefined ? [] : [{ holds: "RemoteSigner", synced: () => signers }],
    });
    const res = await app.inject({ method: "GET", url: "/readyz" });
    await app.close();
    expect(res.statusCode).toBe(status);
    expect(res.body).toContain(says);
  });
});
