// zod issues -> 422 messages that name the field and say what it must be.
import type { z } from "zod";
import { unprocessable } from "./http-error.ts";

export function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out;
}

function show(v: unknown): string {
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? `${s.slice(0, 60)}...` : s;
}

export function issueMessage(
  issue: z.core.$ZodIssue,
  what: string,
  parentPath: readonly PropertyKey[] = [],
): string {
  const path = [...parentPath, ...issue.path];
  const field = fieldPath(path);
  const where = field ? `${what} field '${field}'` : what;
  switch (issue.code) {
    case "unrecognized_keys":
      return issue.keys
        .map(
          (k) => `${field ? `${what} field '${field}'` : what} has unknown property '${show(k)}': remove it`,
        )
        .join("; ");
    case "invalid_value":
      return `${where} must be one of ${issue.values.map((v) => show(v)).join(", ")}`;
    case "invalid_type":
      return issue.input === undefined
        ? `${where} is required`
        : `${where} must be ${article(issue.expected)}`;
    case "too_small":
      return issue.origin === "string"
        ? `${where} must have at least ${issue.minimum} character(s)`
        : `${where} must be at least ${issue.minimum}${issue.origin === "array" ? " item(s)" : ""}`;
    case "too_big":
      return issue.origin === "string"
        ? `${where} must have at most ${issue.maximum} characters`
        : `${where} must be at most ${issue.maximum}${issue.origin === "array" ? " item(s)" : ""}`;
    case "invalid_union": {
      // Unions here are "a special value or the real schema": explain the last alternative.
      const last = issue.errors.at(-1);
      if (last?.length) return last.map((i) => issueMessage(i, what, path)).join("; ");
      return `${where} is not valid`;
    }
    default: {
      // Shared schemas word their messages from the field's name ("url ... must start with"):
      // put our prefix in place of that name rather than saying it twice.
      const key = path.at(-1);
      if (typeof key === "string" && issue.message.startsWith(`${key} `)) {
        return `${where}${issue.message.slice(key.length)}`;
      }
      return `${where}: ${issue.message}`;
    }
  }
}

function article(expected: string): string {
  if (expected === "object" || expected === "array" || expected === "integer") return `an ${expected}`;
  return `a ${expected}`;
}

/** Parses with `schema` or throws a 422 listing every problem. */
export function parseOr422<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const r = schema.safeParse(value, { reportInput: true });
  if (r.success) return r.data;
  const messages = r.error.issues.flatMap((i) => issueMessage(i, what).split("; "));
  throw unprocessable([...new Set(messages)].slice(0, 20));
}
