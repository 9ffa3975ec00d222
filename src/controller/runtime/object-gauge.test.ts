import { Gauge, Registry } from "prom-client";
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

  it("renders exactly what prom-client's Gauge renders for the same series", async () => {
    const mine = new Registry();
    const theirs = new Registry();
    const g = new ObjectGauge({
      name: "x_c",
      help: "c",
      labelNames: ["type", "status", "reason"],
      registers: [mine],
    });
    const reference = new Gauge({
      name: "x_c",
      help: "c",
      labelNames: ["kind", "namespace", "name", "type", "status", "reason"],
      registers: [theirs],
    });
    const objects = [o, { ...o, name: "p" }, { kind: "Node", namespace: "", name: "gpu-1" }];
    for (const [i, object] of objects.entries()) {
      const series: [Record<"type" | "status" | "reason", string>, number][] = [
        [{ type: "Ready", status: i ? "True" : "False", reason: 'Quoted "x"\\y\nz' }, 1],
        [{ type: "Scheduled", status: "True", reason: "Placed" }, i / 3],
      ];
      g.set(object, series);
      for (const [labels, value] of series) reference.set({ ...object, ...labels }, value);
    }
    expect(await mine.metrics()).toBe(await theirs.metrics());
  });

  it("keeps each label set's names in their order and apart, whatever the values hold", async () => {
    const registry = new Registry();
    const g = new ObjectGauge<"a" | "b">({
      name: "x",
      help: "x",
      labelNames: ["a", "b"],
      registers: [registry],
    });
    g.set(o, [[{ a: "1", b: "2" }, 1]]);
    g.set({ ...o, name: "p" }, [[{ b: "2", a: "1" }, 1]]);
    g.set({ ...o, name: "q" }, [
      [{ a: '1","b":"2' } as Record<"a" | "b", string>, 1],
      [{ a: "1\u0000b\u00002" } as Record<"a" | "b", string>, 1],
    ]);
    expect((await registry.metrics()).split("\n").filter((l) => l.startsWith("x{"))).toEqual([
      'x{kind="Orchestrator",namespace="video",name="o",a="1",b="2"} 1',
      'x{kind="Orchestrator",namespace="video",name="p",b="2",a="1"} 1',
      'x{kind="Orchestrator",namespace="video",name="q",a="1\\",\\"b\\":\\"2"} 1',
      'x{kind="Orchestrator",namespace="video",name="q",a="1\u0000b\u00002"} 1',
    ]);
  });

  it("keeps what was set, not the caller's objects, and many distinct label sets", async () => {
    const g = new ObjectGauge<"id">({ name: "x", help: "x", labelNames: ["id"], registers: [] });
    const labels = { id: "a" };
    const ref = { ...o };
    g.set(ref, [[labels, 1]]);
    labels.id = "changed";
    ref.name = "changed";
    expect((await g.get()).values).toEqual([
      { labels: { kind: "Orchestrator", namespace: "video", name: "o", id: "a" }, value: 1 },
    ]);
    // More distinct label sets than the pool keeps: each object still renders its own.
    for (let i = 0; i < 5000; i++) g.set({ ...o, name: `n-${i}` }, [[{ id: `id-${i}` }, i]]);
    const values = (await g.get()).values;
    expect(values).toHaveLength(5001);
    expect(values.every((v, i) => i === 0 || (v.labels.id === `id-${i - 1}` && v.value === i - 1))).toBe(
      true,
    );
  });
});
