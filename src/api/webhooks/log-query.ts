// The log list's query string: `limit` (default 20, max 1000), `cursor` (from the Link header),
// `count=true` (X-Total-Count). Unknown parameters are refused by name.
import { unprocessable } from "../errors/http-error.ts";
import { decodeCursor, type Position } from "./cursor.ts";
import { DEFAULT_LIMIT, MAX_LIMIT } from "./list-query.ts";

export interface LogQuery {
  limit: number;
  after?: Position | undefined;
  count: boolean;
}

export function parseLogQuery(query: Record<string, unknown>): LogQuery {
  const q: LogQuery = { limit: DEFAULT_LIMIT, count: false };
  for (const [name, value] of Object.entries(query)) {
    if (typeof value !== "string")
      throw unprocessable(`query parameter '${name.slice(0, 40)}' must be given once`);
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
    } else {
      throw unprocessable(
        `query parameter '${name.slice(0, 40)}' is not supported for the log: use limit, cursor or count`,
      );
    }
  }
  return q;
}
