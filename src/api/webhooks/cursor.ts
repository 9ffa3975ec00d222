// List order and paging: newest first (createdAt descending), ties broken by id ascending, so
// the order is total and stable while objects are added. A cursor is the position of the last
// item of a page, opaque to clients (base64url JSON).
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

export function encodeCursor(p: Position): string {
  return Buffer.from(JSON.stringify([p.createdAt, p.id])).toString("base64url");
}

export function decodeCursor(cursor: string): Position {
  const invalid = () =>
    unprocessable(
      "query parameter 'cursor' is not valid: pass the cursor from the previous page's Link header",
    );
  if (cursor.length > 1000 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalid();
  }
  if (
    !Array.isArray(v) ||
    v.length !== 2 ||
    typeof v[0] !== "number" ||
    !Number.isFinite(v[0]) ||
    typeof v[1] !== "string"
  ) {
    throw invalid();
  }
  return { createdAt: v[0], id: v[1] };
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
