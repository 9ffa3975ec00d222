import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HttpError } from "../errors/http-error.ts";
import { comparePositions, decodeCursor, encodeCursor, type Position, pageOf } from "./cursor.ts";

const positions = fc.array(
  fc.record({ createdAt: fc.integer({ min: 0, max: 20 }), id: fc.string({ maxLength: 4 }) }),
  { maxLength: 60 },
);

describe("cursor", () => {
  it("round-trips a position", () => {
    fc.assert(
      fc.property(fc.record({ createdAt: fc.integer(), id: fc.string() }), (p) => {
        expect(decodeCursor(encodeCursor(p))).toEqual(p);
      }),
    );
  });

  it.each(["", "!!", "bm90IGpzb24", Buffer.from('["x","y"]').toString("base64url"), "a".repeat(2000)])(
    "refuses the cursor %j with 422",
    (c) => {
      expect(() => decodeCursor(c)).toThrow(HttpError);
      try {
        decodeCursor(c);
      } catch (err) {
        expect((err as HttpError).status).toBe(422);
      }
    },
  );
});

describe("pageOf", () => {
  it("orders newest first, ties by id", () => {
    const items = [
      { createdAt: 1, id: "b" },
      { createdAt: 2, id: "z" },
      { createdAt: 1, id: "a" },
    ];
    expect(pageOf(items, 10).items.map((i) => i.id)).toEqual(["z", "a", "b"]);
  });

  it("visits every item exactly once when following next, whatever the page size", () => {
    fc.assert(
      fc.property(positions, fc.integer({ min: 1, max: 7 }), (raw, limit) => {
        const unique = [...new Map(raw.map((p) => [`${p.createdAt}/${p.id}`, p])).values()];
        const seen: Position[] = [];
        let after: Position | undefined;
        for (let i = 0; i < 100; i++) {
          const page = pageOf(unique, limit, after);
          seen.push(...page.items);
          if (!page.next) break;
          after = decodeCursor(encodeCursor(page.next));
        }
        expect(seen).toEqual([...unique].sort(comparePositions));
      }),
    );
  });

  it("has no next on the last page", () => {
    const items = [{ createdAt: 1, id: "a" }];
    expect(pageOf(items, 1).next).toBeUndefined();
    expect(pageOf([...items, { createdAt: 0, id: "b" }], 1).next).toEqual({ createdAt: 1, id: "a" });
  });
});
