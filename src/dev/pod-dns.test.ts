import { describe, expect, it } from "vitest";
import { clusterDnsPairs, podHostsIn, routePodHosts } from "./pod-dns.ts";

describe("pod DNS names for the local simulators", () => {
  const config = JSON.stringify({
    runners: [
      { runner_url: "http://o-live-sd-0.o-live-sd.ns.svc.cluster.local:8000", health_url: "/health" },
      { runner_url: "http://o-live-sd-1.o-live-sd.ns.svc.cluster.local:8000", health_url: "/health" },
    ],
  });

  it("finds each pod name under its headless Service, and no Service name", () => {
    expect(podHostsIn(config).map((h) => [h.pod, h.namespace])).toEqual([
      ["o-live-sd-0", "ns"],
      ["o-live-sd-1", "ns"],
    ]);
    expect(podHostsIn("http://runner.ns.svc.cluster.local:8000")).toEqual([]);
  });

  it("routes the known ones to their IPs, leaves the others (a pod without an IP) as they are", () => {
    const routed = routePodHosts(config, (h) => (h.pod === "o-live-sd-0" ? "127.0.0.9" : undefined));
    expect(routed).toContain("http://127.0.0.9:8000");
    expect(routed).toContain("http://o-live-sd-1.o-live-sd.ns.svc.cluster.local:8000");
  });
});

describe("cluster DNS for a client on this machine", () => {
  const pod = (
    name: string,
    o: { ip?: string; phase?: string; subdomain?: string; gone?: boolean } = {},
  ) => ({
    metadata: { name, namespace: "ns", ...(o.gone ? { deletionTimestamp: "2026-11-28T00:00:00Z" } : {}) },
    spec: { hostname: name, ...(o.subdomain === "" ? {} : { subdomain: o.subdomain ?? "live-pods" }) },
    status: { phase: o.phase ?? "Running", ...(o.ip === "" ? {} : { podIP: o.ip ?? "127.1.0.5" }) },
  });

  it("names each running pod under its headless Service with its loopback IP", () => {
    expect(clusterDnsPairs([pod("live-0"), pod("live-1", { ip: "127.1.0.6" })])).toEqual([
      "live-0.live-pods.ns.svc.cluster.local:127.1.0.5",
      "live-1.live-pods.ns.svc.cluster.local:127.1.0.6",
    ]);
  });

  it.each([
    ["no subdomain (no DNS name)", pod("a", { subdomain: "" })],
    ["not running", pod("a", { phase: "Pending" })],
    ["being deleted", pod("a", { gone: true })],
    ["no IP yet", pod("a", { ip: "" })],
    ["an address off this machine (never dialled)", pod("a", { ip: "10.0.0.7" })],
  ])("leaves out a pod with %s", (_, p) => {
    expect(clusterDnsPairs([p])).toEqual([]);
  });
});
