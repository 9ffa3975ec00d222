import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HttpError } from "../errors/http-error.ts";
import {
  CURSOR_PATTERN,
  comparePositions,
  decodeCursor,
  encodeCursor,
  type Position,
  pageOf,
} from "./cursor.ts";

const positions = fc.array(
  fc.record({ createdAt: fc.integer({ min: 0, max: 20 }), id: fc.stringMatching(/^[a-z0-9.-]{0,4}$/) }),
  { maxLength: 60 },
);

// Positions as the stores hold them: integer ms and ids that are Kubernetes names or UUIDs.
const storedPosition = fc.record({
  createdAt: fc.nat({ max: Number.MAX_SAFE_INTEGER }).map((n) => n % 1e15),
  id: fc.oneof(fc.uuid(), fc.stringMatching(/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/)),
});

describe("cursor", () => {
  it("round-trips a position, and its form is the document's pattern", () => {
    fc.assert(
      fc.property(storedPosition, (p) => {
        const cursor = encodeCursor(p);
        expect(cursor).toMatch(CURSOR_PATTERN);
        expect(decodeCursor(cursor)).toEqual(p);
      }),
    );
  });

  it("answers every string the document's pattern calls valid with a position (empty: none)", () => {
    fc.assert(
      fc.property(fc.stringMatching(CURSOR_PATTERN), (cursor) => {
        const p = decodeCursor(cursor);
        if (cursor === "") expect(p).toBeUndefined();
        else expect(p && decodeCursor(encodeCursor(p))).toEqual(p);
      }),
    );
  });

  it.each([
    "!!",
    "bm90IGpzb24",
    "WzE3MDAwMDAwMDAwMDAsImEiXQ",
    "12_ABC",
    "_x",
    "1234567890123456_x",
    `1_${"a".repeat(254)}`,
  ])("refuses the cursor %j with 422 naming the parameter and its form", (c) => {
    let thrown: unknown;
    try {
      decodeCursor(c);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(HttpError);
    expect((thrown as HttpError).status).toBe(422);
    expect((thrown as HttpError).messages[0]).toMatch(
      /query parameter 'cursor' must look like <createdAt ms>_<id>/,
    );
  });
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
