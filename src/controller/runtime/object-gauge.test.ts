import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { ObjectGauge } from "./object-gauge.ts";

describe("ObjectGauge", () => {
  const o = { kind: "Orchestrator", namespace: "video", name: "o" };

  it("renders each object's series with its kind, namespace and name, as prom-client's text format", async () => {
    const registry = new Registry();
    const g = new ObjectGauge({
      name: "x_fact",
      help: "a fact",
      labelNames: ["fact"],
      registers: [registry],
    });
    g.set(o, [
      [{ fact: "deposit" }, 0.5],
      [{ fact: "reserve" }, 0],
    ]);
    g.set({ ...o, name: "p" }, [[{ fact: "deposit" }, 1]]);
    const text = await registry.metrics();
    expect(text).toContain("# TYPE x_fact gauge");
    expect(text.split("\n").filter((l) => l.startsWith("x_fact{"))).toEqual([
      'x_fact{kind="Orchestrator",namespace="video",name="o",fact="deposit"} 0.5',
      'x_fact{kind="Orchestrator",namespace="video",name="o",fact="reserve"} 0',
      'x_fact{kind="Orchestrator",namespace="video",name="p",fact="deposit"} 1',
    ]);
  });

  it("replaces an object's series as a whole; none drops the object; reset drops all", async () => {
    const registry = new Registry();
    const g = new ObjectGauge({ name: "x_c", help: "c", labelNames: ["type"], registers: [registry] });
    g.set(o, [[{ type: "Ready" }, 1]]);
    g.set(o, [[{ type: "Ready" }, 1]]); // unchanged: kept as it is
    g.set(o, [[{ type: "Scheduled" }, 1]]);
    expect((await g.get()).values).toEqual([
      { labels: { kind: "Orchestrator", namespace: "video", name: "o", type: "Scheduled" }, value: 1 },
    ]);
    g.set(o, []);
    expect(g.objects).toBe(0);
    g.set(o, [[{ type: "Ready" }, 1]]);
    g.reset();
    expect((await g.get()).values).toEqual([]);
  });
});
