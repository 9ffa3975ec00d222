import { describe, expect, it } from "vitest";
import { routeModelsFile, type ServiceRef, serviceOfUrl, servicesInModelsFile } from "./service-urls.ts";

describe("serviceOfUrl", () => {
  it.each([
    [
      "http://a100-sd-turbo.orch.svc.cluster.local:8000",
      { name: "a100-sd-turbo", namespace: "orch", port: 8000 },
    ],
    ["http://runner.ns.svc:9000/", { name: "runner", namespace: "ns", port: 9000 }],
    ["https://runner.ns.svc.cluster.local", { name: "runner", namespace: "ns", port: 443 }],
    ["http://runner.ns.svc.cluster.local", { name: "runner", namespace: "ns", port: 80 }],
    ["http://127.0.0.1:8000", undefined],
    ["http://runner.example.com:8000", undefined],
    ["http://runner.ns.svc.other.domain:8000", undefined],
    ["not a url", undefined],
  ])("%s names %o", (url, want) => {
    expect(serviceOfUrl(url)).toEqual(want);
  });
});

const file = (...urls: (string | undefined)[]) =>
  JSON.stringify(
    urls.map((url, i) => ({
      pipeline: "text-to-image",
      model_id: `org/m${i}`,
      ...(url ? { url, token: `t${i}` } : {}),
    })),
  );
const endpoints: Record<string, string> = { "ns/a:8000": "127.0.1.5:8000", "ns/b:8000": "127.0.1.6:8001" };
const endpoint = (s: ServiceRef) => endpoints[`${s.namespace}/${s.name}:${s.port}`];

describe("routeModelsFile", () => {
  it.each([
    {
      what: "a runner Service URL becomes its pod's address, token and model kept",
      urls: ["http://a.ns.svc.cluster.local:8000"],
      want: ["http://127.0.1.5:8000"],
    },
    {
      what: "the Service's target port is used",
      urls: ["http://b.ns.svc.cluster.local:8000"],
      want: ["http://127.0.1.6:8001"],
    },
    {
      what: "a user's own URL and a managed model (no url) are left alone",
      urls: ["http://10.0.0.9:8000", undefined],
      want: ["http://10.0.0.9:8000", undefined],
    },
    {
      what: "a Service with no running pod keeps its URL (the node then says it cannot reach it)",
      urls: ["http://c.ns.svc.cluster.local:8000"],
      want: ["http://c.ns.svc.cluster.local:8000"],
    },
  ])("$what", ({ urls, want }) => {
    const routed = JSON.parse(routeModelsFile(file(...urls), endpoint)) as { url?: string; token?: string }[];
    expect(routed.map((e) => e.url)).toEqual(want);
    routed.forEach((e, i) => {
      expect(e.token).toBe(urls[i] ? `t${i}` : undefined);
    });
  });

  it.each(["not json", '{"pipeline":"x"}', ""])("returns %j as it is (not a list of models)", (text) => {
    expect(routeModelsFile(text, endpoint)).toBe(text);
  });
});

describe("servicesInModelsFile", () => {
  it("lists each Service once, and nothing for other URLs", () => {
    const text = file("http://a.ns.svc.cluster.local:8000", "http://a.ns.svc:8000", "http://127.0.0.1:8000");
    expect(servicesInModelsFile(text)).toEqual([{ name: "a", namespace: "ns", port: 8000 }]);
  });
});
