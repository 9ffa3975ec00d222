// A rule spanning several fields, written once and enforced twice: by the API server as a CEL
// `x-kubernetes-validations` entry in the CRD, and by zod (examples, the API, the controller).
// Transition rules (immutable fields) compare the object with its previous version (`oldSelf`):
// only the API server sees both, so they are CEL only, with the same rule in TypeScript for tests.
import type { z } from "zod";

export type CelReason =
  | "FieldValueRequired"
  | "FieldValueInvalid"
  | "FieldValueForbidden"
  | "FieldValueDuplicate";

export interface CrossFieldRule<T> {
  /** CEL with `self` = the object the rule is attached to. O(1) rules only: no loops over lists. */
  rule: string;
  /** What is wrong and what to write instead (zod's message; the API server's if messageExpression fails). */
  message: string;
  /**
   * CEL building the API server's message from the object: the values that break the rule and
   * the fix. A string expression over `self` (and `oldSelf` in transition rules).
   */
  messageExpression: string;
  /** The field the error names, relative to the object (".keystoreSecret"). */
  fieldPath?: string;
  reason?: CelReason;
  /** The same rule over the parsed value. */
  holds: (value: T) => boolean;
}

/** A rule on an update: `rule` sees `self` and `oldSelf` (immutable fields). */
export interface TransitionRule<T> extends Omit<CrossFieldRule<T>, "holds"> {
  /** The same rule over the previous and the new parsed value. */
  holdsAcross: (old: T, next: T) => boolean;
}

export interface CelValidation {
  rule: string;
  message: string;
  messageExpression: string;
  fieldPath?: string;
  reason?: CelReason;
}

export function celValidation<T>(r: CrossFieldRule<T> | TransitionRule<T>): CelValidation {
  return {
    rule: r.rule,
    message: r.message,
    messageExpression: r.messageExpression,
    ...(r.fieldPath ? { fieldPath: r.fieldPath } : {}),
    ...(r.reason ? { reason: r.reason } : {}),
  };
}

/**
 * Attaches the rules to an object schema: zod refinements plus the CRD's CEL validations; the
 * transition rules are CEL only (zod parses one version of an object).
 */
export function withRules<S extends z.ZodType>(
  schema: S,
  rules: readonly CrossFieldRule<z.output<S>>[],
  transitions: readonly TransitionRule<z.output<S>>[] = [],
): S {
  return schema
    .superRefine((value, ctx) => {
      for (const r of rules) {
        if (!r.holds(value as z.output<S>)) {
          ctx.addIssue({ code: "custom", message: r.message, path: pathOf(r.fieldPath) });
        }
      }
    })
    .meta({ "x-kubernetes-validations": [...rules, ...transitions].map(celValidation) });
}

function pathOf(fieldPath: string | undefined): string[] {
  return fieldPath ? fieldPath.split(".").filter((p) => p !== "") : [];
}
