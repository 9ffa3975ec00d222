import { describe, expect, it } from "vitest";
import { createBaseApp } from "./app.ts";

/** An app whose log lines land in `lines`, with one route that answers `status` and maybe logs. */
async function appLogging(level: "info" | "debug") {
  const lines: Record<string, unknown>[] = [];
  const app = createBaseApp({
    prefix: "/api",
    bodyLimit: 1024,
    log: { level, stream: { write: (l: string) => lines.push(JSON.parse(l) as Record<string, unknown>) } },
  });
  app.get("/answer/:status", async (req, reply) => {
    const status = Number((req.params as { status: string }).status);
    if (status === 299) req.log.warn({ token: "abc" }, "route says something");
    return reply.code(status).send({ status });
  });
  app.get("/level", async (req) => ({ level: req.log.level }));
  await app.ready();
  return { app, lines };
}

describe("request logging: one line per refused or failed request, the request's id on each", () => {
  it.each<[string, "info" | "debug", number, string[]]>([
    ["2xx at info: nothing", "info", 200, []],
    ["2xx at debug: served", "debug", 200, ["request served"]],
    ["4xx: refused", "info", 404, ["request refused"]],
    ["5xx: failed", "info", 503, ["request failed"]],
    ["a route's own line, then nothing for its 2xx", "info", 299, ["route says something"]],
  ])("%s", async (_, level, status, messages) => {
    const { app, lines } = await appLogging(level);
    const res = await app.inject({ method: "GET", url: `/answer/${status}` });
    expect(res.statusCode).toBe(status);
    const requestLines = lines.filter((l) => l.reqId !== undefined);
    expect(requestLines.map((l) => l.msg)).toEqual(messages);
    for (const l of requestLines) expect(l.reqId).toBe(requestLines[0]!.reqId);
    // Secrets stay redacted in a request's child logger as in the app's.
    for (const l of requestLines) if ("token" in l) expect(l.token).toBe("[redacted]");
    await app.close();
  });

  it.each(["info", "debug"] as const)("a request's logger reports the app's level (%s)", async (level) => {
    const { app } = await appLogging(level);
    const res = await app.inject({ method: "GET", url: "/level" });
    await app.close();
    expect(res.json()).toEqual({ level });
  });
});
