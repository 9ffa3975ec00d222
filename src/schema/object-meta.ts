// The parts of metadata the operator reads; everything else the API server sends passes through.
import { z } from "zod";

export const ObjectMetaLiteSchema = z
  .looseObject({
    name: z.string().optional().describe("Name, unique in the namespace."),
    generateName: z.string().optional().describe("Prefix for a server-generated name."),
    namespace: z.string().optional().describe("Namespace of the object."),
    uid: z.string().optional().describe("Unique id set by the API server."),
    resourceVersion: z
      .string()
      .optional()
      .describe("Version for optimistic concurrency, set by the API server."),
    generation: z
      .int()
      .optional()
      .describe("Spec generation, incremented by the API server on every spec change."),
    creationTimestamp: z.string().optional().describe("Creation time (RFC 3339), set by the API server."),
    deletionTimestamp: z.string().optional().describe("Set when deletion was requested."),
    labels: z.record(z.string(), z.string()).optional().describe("Labels, for selection."),
    annotations: z.record(z.string(), z.string()).optional().describe("Annotations, for tools."),
  })
  .describe("Standard object metadata.");

export type ObjectMetaLite = z.infer<typeof ObjectMetaLiteSchema>;
