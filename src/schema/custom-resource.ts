// What the three kinds share around their spec and status: the object as a manifest says it
// (strict: what users write and examples hold) and as a reader gets it back from the cluster.
import { z } from "zod";
import { API_VERSION } from "./api-group.ts";
import { type ObjectMetaLite, ObjectMetaLiteSchema } from "./object-meta.ts";

/** A kind's whole object: apiVersion, kind, metadata, spec and (optional) status. */
export function customResourceSchema<Kind extends string, Spec extends z.ZodType, Status extends z.ZodType>(
  kind: Kind,
  spec: Spec,
  status: Status,
) {
  return z.strictObject({
    apiVersion: z.literal(API_VERSION),
    kind: z.literal(kind),
    metadata: ObjectMetaLiteSchema,
    spec,
    status: status.optional(),
  });
}

/**
 * An object of one of our kinds as read from the cluster (an informer's cache, a GET, a watch
 * event): what every reader handles, rather than the manifest. apiVersion and kind may be absent
 * (list items), metadata carries what the API server sets, fields this version does not know
 * pass through, and the status may not be written yet. The spec is what the API server admitted
 * against the CRD generated from these schemas, with its defaults applied.
 */
export type Stored<Spec, Status> = {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMetaLite;
  spec: Spec;
  status?: Status;
};

/**
 * What a reader that trusts nothing may assume of an object someone else wrote: any field may
 * be missing and any value of another type (an object admitted under an older CRD, say). The API
 * reads Webhooks so: its answers must match the public contract whatever the cluster holds.
 */
export type Loose<T> = unknown extends T ? unknown : LooseValue<NonNullable<T>>;

type LooseValue<T> = T extends readonly (infer E)[]
  ? readonly Loose<E>[]
  : T extends object
    ? { [K in keyof T]?: Loose<T[K]> }
    : unknown;
