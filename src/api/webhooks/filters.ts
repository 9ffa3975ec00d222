// List filters, in the hosted API's JSON form (`filters=[{"id":"name","value":"x"}]`) and as
// plain query parameters (`name=x`, `createdAt[gte]=<ms>`). name and url match a
// case-insensitive substring; streamId, projectId and userId match exactly; createdAt takes a
// range {gt, gte, lt, lte} in ms (or one number for equality). All filters must hold.
import { z } from "zod";
import { unprocessable } from "../errors/http-error.ts";
import type { ApiWebhook } from "./api-schema.ts";

export type Range = { gt?: number; gte?: number; lt?: number; lte?: number };

export type Filter =
  | { field: "name" | "url"; contains: string }
  | { field: "streamId" | "projectId" | "userId"; equals: string }
  | { field: "createdAt"; range: Range };

export const SUBSTRING_FIELDS = ["name", "url"] as const;
export const EXACT_FIELDS = ["streamId", "projectId", "userId"] as const;
export const FILTER_FIELDS = [...SUBSTRING_FIELDS, ...EXACT_FIELDS, "createdAt"] as const;
const RANGE_OPS = ["gt", "gte", "lt", "lte"] as const;
const MAX_FILTERS = 20;
const MAX_TEXT = 2048;
/** A number as JSON writes it (what a client's serializer sends for a `number` parameter). */
const NUMBER_TEXT = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;

// What the parser below accepts, as a schema for the OpenAPI document (the parser keeps its own
// messages; filters.test.ts checks that the two agree).
export const FilterText = z.string().max(MAX_TEXT);
// As text the document promises less than the parser takes (which is any finite number): a
// bounded mantissa and exponent can never overflow to Infinity.
const Millis = z.union([z.number(), z.string().regex(/^-?\d{1,16}(\.\d{1,16})?([eE][-+]?\d{1,2})?$/)]);
export const FiltersSchema = z
  .array(
    z.discriminatedUnion("id", [
      z.object({
        id: z.enum([...SUBSTRING_FIELDS, ...EXACT_FIELDS]),
        value: z.union([FilterText, z.number(), z.boolean()]),
      }),
      z.object({
        id: z.literal("createdAt"),
        value: z.union([
          Millis,
          z.strictObject(Object.fromEntries(RANGE_OPS.map((op) => [op, Millis.optional()]))),
        ]),
      }),
    ]),
  )
  .max(MAX_FILTERS);

function isOneOf<T extends string>(list: readonly T[], v: unknown): v is T {
  return typeof v === "string" && (list as readonly string[]).includes(v);
}

export function filterFor(field: string, value: unknown, where: string): Filter {
  if (isOneOf(SUBSTRING_FIELDS, field)) return { field, contains: stringValue(value, where) };
  if (isOneOf(EXACT_FIELDS, field)) return { field, equals: stringValue(value, where) };
  if (field === "createdAt") return { field, range: rangeValue(value, where) };
  throw unprocessable(
    `${where} filters on unknown field '${field.slice(0, 40)}': use one of ${FILTER_FIELDS.join(", ")}`,
  );
}

function stringValue(v: unknown, where: string): string {
  if (typeof v === "string" && v.length <= MAX_TEXT) return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  throw unprocessable(`${where} must be a string of at most ${MAX_TEXT} characters`);
}

function numberValue(v: unknown, where: string): number {
  const n = typeof v === "number" ? v : typeof v === "string" && NUMBER_TEXT.test(v) ? Number(v) : Number.NaN;
  if (!Number.isFinite(n)) throw unprocessable(`${where} must be a number (milliseconds since the epoch)`);
  return n;
}

function rangeValue(v: unknown, where: string): Range {
  if (typeof v === "number" || typeof v === "string") {
    const n = numberValue(v, where);
    return { gte: n, lte: n };
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) {
    throw unprocessable(`${where} must be a number or an object with gt, gte, lt or lte`);
  }
  const range: Range = {};
  for (const [op, n] of Object.entries(v)) {
    if (!isOneOf(RANGE_OPS, op)) {
      throw unprocessable(`${where} has unknown operator '${op.slice(0, 20)}': use gt, gte, lt or lte`);
    }
    range[op] = numberValue(n, `${where}.${op}`);
  }
  return range;
}

/** The hosted API's `filters` query parameter: a JSON array of {id, value}. */
export function parseJsonFilters(text: string): Filter[] {
  const where = "query parameter 'filters'";
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw unprocessable(`${where} is not JSON: send a JSON array like [{"id":"name","value":"x"}]`);
  }
  if (!Array.isArray(v)) throw unprocessable(`${where} must be a JSON array of {"id", "value"} objects`);
  if (v.length > MAX_FILTERS) throw unprocessable(`${where} has more than ${MAX_FILTERS} filters`);
  return v.map((f, i) => {
    if (!f || typeof f !== "object" || typeof (f as { id?: unknown }).id !== "string" || !("value" in f)) {
      throw unprocessable(`${where}[${i}] must be an object with a string 'id' and a 'value'`);
    }
    const { id, value } = f as { id: string; value: unknown };
    return filterFor(id, value, `${where}[${i}]`);
  });
}

function inRange(n: number, r: Range): boolean {
  return (
    (r.gt === undefined || n > r.gt) &&
    (r.gte === undefined || n >= r.gte) &&
    (r.lt === undefined || n < r.lt) &&
    (r.lte === undefined || n <= r.lte)
  );
}

export function matches(w: ApiWebhook, filters: readonly Filter[]): boolean {
  for (const f of filters) {
    if ("contains" in f) {
      if (!w[f.field].toLowerCase().includes(f.contains.toLowerCase())) return false;
    } else if ("equals" in f) {
      if (w[f.field] !== f.equals) return false;
    } else if (!inRange(w.createdAt, f.range)) {
      return false;
    }
  }
  return true;
}
