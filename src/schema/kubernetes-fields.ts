// Field shapes Kubernetes itself defines (object names, Secret keys, quantities), written once so
// every resource validates them the way the API server would.
import { z } from "zod";

export const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;
/** resource.Quantity as the API server parses it (`4Gi`, `500m`, `2`). */
const QUANTITY =
  /^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$/;
/** Label keys and annotation keys: an optional DNS prefix and a name. */
const QUALIFIED_NAME =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** The name of another object in the same namespace (Secret, ConfigMap ...). */
export function objectName(kind: string) {
  return z
    .string()
    .min(1)
    .max(253)
    .regex(DNS_SUBDOMAIN, {
      error: (iss) =>
        `${JSON.stringify(iss.input)} is not a valid ${kind} name: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit`,
    });
}

export const SecretKeySchema = z
  .string()
  .min(1)
  .max(253)
  .regex(SECRET_KEY, {
    error: (iss) =>
      `${JSON.stringify(iss.input)} is not a valid Secret key: letters, digits, '-', '_' and '.' only`,
  });

/** A quantity such as `4Gi` or `500m`; YAML numbers (`cpu: 2`) are accepted and read as strings. */
export const QuantitySchema = z
  .union([
    z
      .string()
      .max(64)
      .regex(QUANTITY, {
        error: (iss) =>
          `${JSON.stringify(iss.input)} is not a Kubernetes quantity: write a number with an optional suffix, for example 500m, 2 or 4Gi`,
      }),
    z.int().min(0),
  ])
  .transform(String);

export const LabelKeySchema = z
  .string()
  .min(1)
  .max(317)
  .regex(QUALIFIED_NAME, {
    error: (iss) =>
      `${JSON.stringify(iss.input)} is not a valid label or annotation key: an optional DNS prefix and '/', then letters, digits, '-', '_' and '.'`,
  });

export function stringMap(description: string, valueMaxLength: number) {
  return z.record(LabelKeySchema, z.string().max(valueMaxLength)).describe(description);
}
