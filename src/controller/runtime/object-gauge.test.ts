import { Gauge, Registry } from "prom-client";
import { describe, expect, it, vi } from "vitest";
import { ObjectGauge, ObjectGaugeRegistry } from "./object-gauge.ts";

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

  // The same series through prom-client's Gauge in a plain Registry, and through an ObjectGauge
  // in a plain Registry (prom-client renders its get()) and in an ObjectGaugeRegistry (text()).
  async function threeWays(
    objects: { kind: string; namespace: string; name: string }[],
    seriesOf: (i: number) => [Record<"type" | "status" | "reason", string>, number][],
    help = "c",
  ) {
    const theirs = new Registry();
    const viaGet = new Registry();
    const direct = new ObjectGaugeRegistry();
    const reference = new Gauge({
      name: "x_c",
      help,
      labelNames: ["kind", "namespace", "name", "type", "status", "reason"],
      registers: [theirs],
    });
    const gauges = [viaGet, direct].map(
      (r) => new ObjectGauge({ name: "x_c", help, labelNames: ["type", "status", "reason"], registers: [r] }),
    );
    for (const [i, object] of objects.entries()) {
      for (const g of gauges) g.set(object, seriesOf(i));
      for (const [labels, value] of seriesOf(i)) reference.set({ ...object, ...labels }, value);
    }
    const get = vi.spyOn(gauges[1]!, "get");
    const texts = {
      theirs: await theirs.metrics(),
      viaGet: await viaGet.metrics(),
      direct: await direct.metrics(),
    };
    return { ...texts, directCalledGet: get.mock.calls.length };
  }

  it("renders exactly what prom-client's Gauge renders for the same series, both ways", async () => {
    const objects = [o, { ...o, name: "p" }, { kind: "Node", namespace: "", name: "gpu-1" }];
    const r = await threeWays(
      objects,
      (i) => [
        [{ type: "Ready", status: i ? "True" : "False", reason: 'Quoted "x"\\y\nz' }, 1],
        [{ type: "Scheduled", status: "True", reason: "Placed" }, i / 3],
        [{ type: "Odd", status: "", reason: "" }, [Number.NaN, Number.POSITIVE_INFINITY, -Infinity][i]!],
      ],
      'help with a \\ and a\nnewline "quoted"',
    );
    expect(r.viaGet).toBe(r.theirs);
    expect(r.direct).toBe(r.theirs);
    // The ObjectGaugeRegistry rendered the text itself: prom-client's override point was called.
    expect(r.directCalledGet).toBe(0);
  });

  it("renders thousands of objects in batches, letting the event loop run between them", async () => {
    const objects = Array.from({ length: 2600 }, (_, i) => ({ ...o, name: `o-${i}` }));
    const registry = new ObjectGaugeRegistry();
    const g = new ObjectGauge({ name: "x_c", help: "c", labelNames: ["type"], registers: [registry] });
    for (const object of objects) g.set(object, [[{ type: "Ready" }, 1]]);
    let turns = 0;
    const tick = setInterval(() => turns++, 0);
    const rendering = registry.metrics();
    // Meanwhile an object rendered already goes and comes back, and one not yet rendered changes.
    await new Promise((resolve) => setImmediate(resolve));
    g.set(objects[0]!, []);
    g.set(objects[0]!, [[{ type: "Ready" }, 0]]);
    g.set(objects[2599]!, [[{ type: "Gone" }, 1]]);
    const text = await rendering;
    const lines = text.split("\n").filter((l) => l.startsWith("x_c{"));
    clearInterval(tick);
    expect(turns).toBeGreaterThan(0);
    expect(lines).toHaveLength(2600);
    expect(lines.filter((l) => l.includes('name="o-0"'))).toHaveLength(1);
    expect(lines.at(-1)).toBe('x_c{kind="Orchestrator",namespace="video",name="o-2599",type="Gone"} 1');
    // The same text in pieces: the header, then one per 500 objects, around the other metrics'.
    const pieces: string[] = [];
    for await (const piece of registry.chunks()) pieces.push(piece);
    expect(pieces.join("")).toBe(await registry.metrics());
    expect(pieces.filter((p) => p.includes("x_c{"))).toHaveLength(6);
  });

  it("falls back to prom-client's rendering with default labels or OpenMetrics", async () => {
    for (const configure of [
      (r: Registry) => r.setDefaultLabels({ cluster: "a" }),
      (r: Registry) => r.setContentType(Registry.OPENMETRICS_CONTENT_TYPE as never),
    ]) {
      const theirs = new Registry();
      const mine = new ObjectGaugeRegistry();
      for (const r of [theirs, mine]) {
        configure(r);
        new ObjectGauge({ name: "x", help: "x", labelNames: ["type"], registers: [r] }).set(o, [
          [{ type: "Ready" }, 1],
        ]);
      }
      expect(await mine.metrics()).toBe(await theirs.metrics());
    }
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
