// The OpenAPI 3.1 document of this API, generated from the same zod schemas and operation list
// the routes use (zod 4's toJSONSchema), served at {prefix}/openapi.json.
import { z } from "zod";
import { ADMIN_SCOPE, DEFAULT_PROJECT, EVENTS_WRITE_SCOPE } from "../auth/claims.ts";
import { ErrorObject, RequestSharedSecret, WebhookObjectSchema } from "../webhooks/api-schema.ts";
import { type Operation, webhookOperations } from "../webhooks/operations.ts";
import { deliveryPaths, webhookLogComponent } from "./delivery-paths.ts";

type Json = Record<string, unknown>;

/** JSON Schema of `schema`, its $defs hoisted into `components` (refs rewritten). */
function jsonSchema(schema: z.ZodType, components: Json, io: "input" | "output" = "output"): Json {
  const s = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as Json;
  delete s.$schema;
  const defs = s.$defs as Json | undefined;
  delete s.$defs;
  const rewrite = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(rewrite);
    if (v && typeof v === "object") {
      return Object.fromEntries(
        Object.entries(v).map(([k, x]) => [
          k,
          k === "$ref" && typeof x === "string" ? x.replace("#/$defs/", "#/components/schemas/") : rewrite(x),
        ]),
      );
    }
    return v;
  };
  for (const [name, def] of Object.entries(defs ?? {})) components[name] = rewrite(def);
  return rewrite(s) as Json;
}

/**
 * The spec's single webhook object, shared by requests and responses (read-only and write-only
 * fields marked; only name and url required), with this API's sharedSecret rule.
 */
function webhookComponent(components: Json): Json {
  return jsonSchema(
    WebhookObjectSchema.extend({ sharedSecret: RequestSharedSecret.optional() }),
    components,
    "input",
  );
}

function pathOf(op: Operation): string {
  return op.path.replace(/:(\w+)/g, "{$1}");
}

function operationObject(op: Operation, components: Json): Json {
  const ref = { $ref: "#/components/schemas/webhook" };
  const responseSchema = op.response === "webhook" ? ref : { type: "array", items: ref };
  const o: Json = {
    operationId: op.operationId,
    tags: ["webhook"],
    summary: op.summary,
    description: op.description,
    responses: {
      "200": {
        description: op.responseDescription,
        ...(op.responseHeaders
          ? {
              headers: Object.fromEntries(
                Object.entries(op.responseHeaders).map(([h, d]) => [
                  h,
                  { description: d, schema: { type: "string" } },
                ]),
              ),
            }
          : {}),
        content: { "application/json": { schema: responseSchema } },
      },
      default: {
        description:
          "Any other outcome: 400 malformed JSON, 401 unauthenticated, 403 forbidden, 404 unknown id (or another tenant's), 409 concurrent change, 413 body too large, 415 not JSON, 422 invalid (naming the field), 429 rate limited (Retry-After), 500, 503 (Retry-After).",
        content: { "application/json": { schema: { $ref: "#/components/schemas/error" } } },
      },
    },
  };
  if (op.parameters.length) {
    o.parameters = op.parameters.map((p) => ({
      name: p.name,
      in: p.in,
      required: p.required,
      description: p.description,
      ...(p.json
        ? { content: { "application/json": { schema: jsonSchema(p.schema, components, "input") } } }
        : { schema: jsonSchema(p.schema, components) }),
    }));
  }
  if (op.body) {
    o.requestBody = { required: true, content: { "application/json": { schema: ref } } };
  }
  return o;
}

export function openApiDocument(prefix: string): Json {
  const components: Json = {};
  components.webhook = webhookComponent(components);
  components.error = jsonSchema(ErrorObject, components);
  const paths: Record<string, Json> = {};
  for (const op of webhookOperations) {
    const p = pathOf(op);
    paths[p] ??= {};
    paths[p]![op.method.toLowerCase()] = operationObject(op, components);
  }
  components.webhookLog = webhookLogComponent;
  Object.assign(
    paths,
    deliveryPaths((schema) => jsonSchema(schema, components, "input")),
  );
  return {
    openapi: "3.1.0",
    info: {
      title: "livepeer-operator webhook API",
      version: "1.0.0",
      description:
        "Webhooks of the hosted video API, kept as Webhook custom resources in a Kubernetes cluster. Compatible with the `livepeer` SDK (set its serverURL to this server's base URL). Request bodies are JSON; an object key named `__proto__`, or a `constructor` object with a `prototype` key, anywhere in a body is refused with 400 (it could change an object's prototype). A request without body bytes has no body, whatever its Content-Type: an operation that takes no body accepts an empty one under any Content-Type. A method a path does not list answers 405 with an `Allow` header (HEAD is served wherever GET is); every error answer is `{\"errors\": [...]}`.",
    },
    servers: [{ url: prefix || "/" }],
    security: [{ apiKey: [] }],
    tags: [
      { name: "webhook", description: "webhook operations" },
      { name: "events", description: "event intake" },
    ],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        apiKey: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: `\`Authorization: Bearer <JWT>\`. Claims: \`sub\` = user id (required); \`projectId\` (optional, default '${DEFAULT_PROJECT}'); \`scope\`, space-separated: '${ADMIN_SCOPE}' sees and acts on every tenant, '${EVENTS_WRITE_SCOPE}' may publish events; \`exp\` is required.`,
        },
      },
    },
  };
}
