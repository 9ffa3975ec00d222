// A rule spanning several fields, written once and enforced twice: by the API server as a CEL
// `x-kubernetes-validations` entry in the CRD, and by zod (examples, the API, the controller).
import type { z } from "zod";

export type CelReason =
  | "FieldValueRequired"
  | "FieldValueInvalid"
  | "FieldValueForbidden"
  | "FieldValueDuplicate";

export interface CrossFieldRule<T> {
  /** CEL with `self` = the object the rule is attached to. O(1) rules only: no loops over lists. */
  rule: string;
  /** What is wrong and what to write instead. */
  message: string;
  /** The field the error names, relative to the object (".keystoreSecret"). */
  fieldPath?: string;
  reason?: CelReason;
  /** The same rule over the parsed value. */
  holds: (value: T) => boolean;
}

export interface CelValidation {
  rule: string;
  message: string;
  fieldPath?: string;
  reason?: CelReason;
}

export function celValidation<T>(r: CrossFieldRule<T>): CelValidation {
  return {
    rule: r.rule,
    message: r.message,
    ...(r.fieldPath ? { fieldPath: r.fieldPath } : {}),
    ...(r.reason ? { reason: r.reason } : {}),
  };
}

/** Attaches the rules to an object schema: zod refinements plus the CRD's CEL validations. */
export function withRules<S extends z.ZodType>(schema: S, rules: readonly CrossFieldRule<z.output<S>>[]): S {
  return schema
    .superRefine((value, ctx) => {
      for (const r of rules) {
        if (!r.holds(value as z.output<S>)) {
          ctx.addIssue({ code: "custom", message: r.message, path: pathOf(r.fieldPath) });
        }
      }
    })
    .meta({ "x-kubernetes-validations": rules.map(celValidation) });
}

function pathOf(fieldPath: string | undefined): string[] {
  return fieldPath ? fieldPath.split(".").filter((p) => p !== "") : [];
}
