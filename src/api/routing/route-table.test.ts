import { describe, expect, it } from "vitest";
import { pathPattern, RouteTable } from "./route-table.ts";

describe("pathPattern", () => {
  it.each([
    ["/api/webhook/:id/log", "/api/webhook/abc/log", true],
    ["/api/webhook/:id/log", "/api/webhook/a/b/log", false],
    ["/api/webhook/:id/log", "/api/webhook//log", true],
    ["/api/openapi.json", "/api/openapiXjson", false],
    ["/files/*", "/files/a/b", true],
  ])("%s matches %s: %s", (url, path, expected) => {
    expect(pathPattern(url).test(path)).toBe(expected);
  });
});

describe("RouteTable", () => {
  const table = new RouteTable();
  table.add({ url: "/api/webhook", method: "GET" });
  table.add({ url: "/api/webhook", method: "HEAD" });
  table.add({ url: "/api/webhook", method: "POST" });
  table.add({ url: "/api/webhook", method: ["PUT", "DELETE"], config: { answersMethodNotAllowed: true } });
  table.add({ url: "/api/webhook/:id", method: ["DELETE", "GET", "PUT"] });

  it("lists the methods of every route matching the path, in the usual order", () => {
    expect(table.allowedMethods("/api/webhook")).toEqual(["GET", "HEAD", "POST"]);
    expect(table.allowedMethods("/api/webhook/x")).toEqual(["GET", "PUT", "DELETE"]);
  });

  it("knows no path no route matches; an empty segment matches a parameter, as in fastify's router", () => {
    expect(table.allowedMethods("/api/webhook/")).toEqual(["GET", "PUT", "DELETE"]);
    expect(table.allowedMethods("/api/webhook/x/y")).toBeUndefined();
    expect(table.allowedMethods("/api/other")).toBeUndefined();
  });
});
