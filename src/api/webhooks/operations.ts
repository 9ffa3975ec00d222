// The webhook operations as data: method, path, schemas and words. The routes plugin registers
// them and the OpenAPI document is generated from the same list, so the two cannot drift.
import { z } from "zod";
import { WebhookRequestBody } from "./api-schema.ts";
import { CursorSchema } from "./cursor.ts";
import { FiltersSchema, FilterText } from "./filters.ts";
import { DEFAULT_LIMIT, MAX_LIMIT } from "./list-query.ts";

export type OperationId = "createWebhook" | "getWebhooks" | "getWebhook" | "updateWebhook" | "deleteWebhook";

export interface Parameter {
  name: string;
  in: "path" | "query";
  required: boolean;
  description: string;
  schema: z.ZodType;
  /** Sent as JSON text (OpenAPI `content: application/json`) rather than a plain value. */
  json?: true;
}

export interface Operation {
  operationId: OperationId;
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** fastify syntax (`:id`); the OpenAPI document uses `{id}`. */
  path: string;
  summary: string;
  description: string;
  parameters: Parameter[];
  body?: z.ZodType;
  /** The webhook object, or a list of them. */
  response: "webhook" | "webhooks";
  responseDescription: string;
  responseHeaders?: Record<string, string>;
}

const idParameter: Parameter = {
  name: "id",
  in: "path",
  required: true,
  description: "The webhook's id. Another tenant's webhook answers 404, like an unknown id.",
  schema: z.string(),
};

const q = (name: string, description: string, schema: z.ZodType = z.string()): Parameter => ({
  name,
  in: "query",
  required: false,
  description,
  schema,
});

const writeRules =
  "Unknown properties are refused (422, naming the property). Read-only fields (`id`, `kind`, `userId`, `createdAt`, `status`) are ignored, so a client may send back what it read. " +
  "`events` absent means every kind (including kinds added later); `[]` means none. " +
  "A `projectId` other than the token's is refused (403) unless the token has the `admin` scope. " +
  "A `url` whose host is a loopback, private or link-local address is refused (422) unless the server allows loopback targets (development only).";

export const webhookOperations: Operation[] = [
  {
    operationId: "createWebhook",
    method: "POST",
    path: "/webhook",
    summary: "Create a webhook",
    description: `${writeRules} \`sharedSecret\` (optional; empty means none) is stored in a Secret and never returned.`,
    parameters: [],
    body: WebhookRequestBody,
    response: "webhook",
    responseDescription: "The created webhook (status 200, as the SDK expects).",
  },
  {
    operationId: "getWebhooks",
    method: "GET",
    path: "/webhook",
    summary: "List webhooks",
    description:
      "The caller's webhooks (every tenant's for `admin`), newest first (createdAt descending, then id). Follow the `Link: <...>; rel=\"next\"` header for the next page.",
    parameters: [
      q("limit", `Page size, 1-${MAX_LIMIT} (default ${DEFAULT_LIMIT}).`, z.int().min(1).max(MAX_LIMIT)),
      q(
        "cursor",
        "Where the page starts: the value from the previous page's Link header (`<createdAt ms>_<id>`; any value of that form is answered, empty means the first page).",
        CursorSchema,
      ),
      q("count", "`true` adds the number of matching webhooks in `X-Total-Count`.", z.boolean()),
      {
        ...q(
          "filters",
          'A JSON array of `{"id": field, "value": v}` (URL-encoded): `name` and `url` match a case-insensitive substring; `streamId`, `projectId` and `userId` match exactly; `createdAt` takes `{"gt","gte","lt","lte"}` (ms) or one number.',
          FiltersSchema,
        ),
        json: true,
      },
      q("name", "Case-insensitive substring of the name.", FilterText),
      q("url", "Case-insensitive substring of the URL.", FilterText),
      q("streamId", "Exact stream id.", FilterText),
      q("projectId", "Exact project id.", FilterText),
      q("userId", "Exact user id (useful to admins).", FilterText),
      q("createdAt[gte]", "Created at or after (ms).", z.number()),
      q("createdAt[lte]", "Created at or before (ms).", z.number()),
      q("createdAt[gt]", "Created after (ms).", z.number()),
      q("createdAt[lt]", "Created before (ms).", z.number()),
    ],
    response: "webhooks",
    responseDescription: "One page of webhooks.",
    responseHeaders: {
      link: 'The next page, as `<url>; rel="next"`; absent on the last page.',
      "x-total-count": "With `count=true`: how many webhooks match, over all pages.",
    },
  },
  {
    operationId: "getWebhook",
    method: "GET",
    path: "/webhook/:id",
    summary: "Retrieve a webhook",
    description: "Reads what was just written (read-your-writes).",
    parameters: [idParameter],
    response: "webhook",
    responseDescription: "The webhook.",
  },
  {
    operationId: "updateWebhook",
    method: "PUT",
    path: "/webhook/:id",
    summary: "Update a webhook",
    description: `The path's id is authoritative: a body \`id\` must be absent or equal to it (else 422). Every writable field is replaced by the body's (an omitted \`events\` means every kind, an omitted \`streamId\` none), except \`sharedSecret\`: omitted keeps the stored secret, an empty string removes it. An omitted \`projectId\` keeps the webhook's project. Concurrent updates are applied one after another; if the webhook keeps changing the answer is 409. ${writeRules}`,
    parameters: [idParameter],
    body: WebhookRequestBody,
    response: "webhook",
    responseDescription: "The webhook as updated.",
  },
  {
    operationId: "deleteWebhook",
    method: "DELETE",
    path: "/webhook/:id",
    summary: "Delete a webhook",
    description: "Deletes the webhook and its stored secret.",
    parameters: [idParameter],
    response: "webhook",
    responseDescription: "The deleted webhook (status 200).",
  },
];
