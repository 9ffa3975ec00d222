// The list's query string: `limit` (default 20, max 1000), `cursor` (from the Link header),
// `count=true` (X-Total-Count), and filters (see filters.ts). Unknown parameters are refused by
// name rather than ignored, so a typo never silently widens a listing.
import { unprocessable } from "../errors/http-error.ts";
import { decodeCursor, type Position } from "./cursor.ts";
import { EXACT_FIELDS, type Filter, filterFor, parseJsonFilters, SUBSTRING_FIELDS } from "./filters.ts";

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 1000;

export interface ListQuery {
  limit: number;
  after?: Position | undefined;
  count: boolean;
  filters: Filter[];
}

const RANGE_PARAM = /^createdAt\[(gt|gte|lt|lte)\]$/;

function single(name: string, v: unknown): string {
  if (typeof v === "string") return v;
  throw unprocessable(`query parameter '${name.slice(0, 40)}' must be given once`);
}

export function parseListQuery(query: Record<string, unknown>): ListQuery {
  const q: ListQuery = { limit: DEFAULT_LIMIT, count: false, filters: [] };
  for (const [name, raw] of Object.entries(query)) {
    const value = single(name, raw);
    const range = RANGE_PARAM.exec(name);
    if (name === "limit") {
      if (!/^\d{1,7}$/.test(value) || Number(value) < 1 || Number(value) > MAX_LIMIT) {
        throw unprocessable(`query parameter 'limit' must be an integer from 1 to ${MAX_LIMIT}`);
      }
      q.limit = Number(value);
    } else if (name === "cursor") {
      q.after = decodeCursor(value);
    } else if (name === "count") {
      if (!["true", "false", "1", "0", ""].includes(value)) {
        throw unprocessable("query parameter 'count' must be true or false");
      }
      q.count = value === "true" || value === "1";
    } else if (name === "filters") {
      if (value !== "") q.filters.push(...parseJsonFilters(value));
    } else if (
      (SUBSTRING_FIELDS as readonly string[]).includes(name) ||
      (EXACT_FIELDS as readonly string[]).includes(name)
    ) {
      q.filters.push(filterFor(name, value, `query parameter '${name}'`));
    } else if (range) {
      q.filters.push(filterFor("createdAt", { [range[1]!]: value }, `query parameter '${name}'`));
    } else {
      throw unprocessable(
        `unknown query parameter '${name.slice(0, 40)}': use limit, cursor, count, filters, name, url, streamId, projectId, userId or createdAt[gt|gte|lt|lte]`,
      );
    }
  }
  return q;
}
