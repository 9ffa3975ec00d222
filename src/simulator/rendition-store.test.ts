import { describe, expect, it } from "vitest";
import { RenditionStore } from "./rendition-store.ts";

describe("the orchestrator's rendition store", () => {
  it("serves a rendition at the path it answers until it expires", () => {
    const store = new RenditionStore(1000);
    const path = store.save("ab12cd34", "P240p30fps16x9", "7", Buffer.from("ts"), 0);
    expect(path).toBe("/stream/ab12cd34/P240p30fps16x9/7.ts");
    expect(store.get(path, 999)?.toString()).toBe("ts");
    expect(store.get(path, 1000)).toBeUndefined();
  });

  it("drops expired renditions as new ones come, so a long stream does not grow it", () => {
    const store = new RenditionStore(1000);
    for (let seq = 0; seq < 50; seq++) store.save("s", "r", String(seq), Buffer.alloc(10), seq * 100);
    // At t = 4900 only the last ten (saved after 3900) are still valid.
    expect(store.size).toBe(10);
  });
});
