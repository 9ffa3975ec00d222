// What a simulator can be told to do, from a scenario file, the admin endpoint or the API.
import { z } from "zod";

export const EndpointFaultSchema = z
  .object({
    /** Path as served, e.g. /status or /metrics. */
    path: z.string().startsWith("/"),
    /** Answer with this status (default 500 unless a body is given). */
    status: z.number().int().min(100).max(599).optional(),
    /** Answer with this body instead (e.g. broken JSON, or JSON without a field). */
    body: z.string().optional(),
    contentType: z.string().optional(),
    /** Accept the request and never answer (until cleared or stopped). */
    hang: z.boolean().optional(),
  })
  .strict();

export type EndpointFault = z.infer<typeof EndpointFaultSchema>;

export const SimActionSchema = z.union([
  z.object({ log: z.union([z.string(), z.array(z.string())]) }).strict(),
  z.object({ sessions: z.union([z.number().int().nonnegative(), z.literal("limit")]) }).strict(),
  z.object({ paymentCreateErrors: z.number().int().positive() }).strict(),
  z.object({ fail: EndpointFaultSchema }).strict(),
  z.object({ clear: z.string() }).strict(),
  z.object({ gpuMemoryUsed: z.number().min(0).max(1), gpu: z.string().optional() }).strict(),
]);

export type SimAction = z.infer<typeof SimActionSchema>;
