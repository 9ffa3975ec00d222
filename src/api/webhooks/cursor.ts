// List order and paging: newest first (createdAt descending), ties broken by id ascending, so
// the order is total and stable while objects are added. A cursor is the position of the last
// item of a page: `<createdAt ms>_<id>`. Every string of that form (the OpenAPI document's
// pattern) is a position in the order, so any cursor the document calls valid is answered (with
// the items after it, perhaps none) and every other string is refused by the same rule.
import { z } from "zod";
import { unprocessable } from "../errors/http-error.ts";

export interface Position {
  createdAt: number;
  id: string;
}

/** Negative when `a` comes before `b` in list order. */
export function comparePositions(a: Position, b: Position): number {
  if (a.createdAt !== b.createdAt) return b.createdAt - a.createdAt;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * `<createdAt>_<id>`: createdAt in ms (a non-negative integer of at most 15 digits, below 2^53) and
 * an id as the listed objects have them (webhooks: Kubernetes names; log entries: UUIDs), so a
 * cursor needs no escaping in a URL. An empty cursor means the first page.
 */
export const CURSOR_PATTERN = /^([0-9]{1,15}_[a-z0-9.-]{0,253})?$/;

export const CursorSchema = z
  .string()
  .regex(CURSOR_PATTERN)
  .describe(
    "Where the page starts: the `cursor` of the previous page's `Link` header. Its form is `<createdAt ms>_<id>` (the position of the previous page's last item); any such value is answered with the items after that position, empty means the first page.",
  );

export function encodeCursor(p: Position): string {
  const cursor = `${p.createdAt}_${p.id}`;
  // Ids and times are what the stores hold (Kubernetes names, UUIDs, integer ms): never outside the form.
  if (!CURSOR_PATTERN.test(cursor)) throw new Error(`position ${JSON.stringify(p)} has no cursor form`);
  return cursor;
}

export function decodeCursor(cursor: string): Position | undefined {
  const match = /^([0-9]{1,15})_([a-z0-9.-]{0,253})$/.exec(cursor);
  if (!match) {
    if (cursor === "") return undefined;
    throw unprocessable(
      `query parameter 'cursor' must look like <createdAt ms>_<id> (${CURSOR_PATTERN.source}): pass the cursor from the previous page's Link header, or leave it out for the first page`,
    );
  }
  return { createdAt: Number(match[1]), id: match[2]! };
}

export interface Page<T> {
  items: T[];
  /** Where the next page starts; absent on the last page. */
  next?: Position;
}

/** One page of `items` (any order) after `after`, in list order. */
export function pageOf<T extends Position>(items: T[], limit: number, after?: Position): Page<T> {
  const sorted = [...items].sort(comparePositions);
  const start = after ? firstAfter(sorted, after) : 0;
  const slice = sorted.slice(start, start + limit);
  const last = slice.at(-1);
  return start + limit < sorted.length && last
    ? { items: slice, next: { createdAt: last.createdAt, id: last.id } }
    : { items: slice };
}

function firstAfter(sorted: Position[], after: Position): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (comparePositions(sorted[mid]!, after) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
