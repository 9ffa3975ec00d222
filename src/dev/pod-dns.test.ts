import { describe, expect, it } from "vitest";
import { podHostsIn, routePodHosts } from "./pod-dns.ts";

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
