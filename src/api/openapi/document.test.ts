import { describe, expect, it } from "vitest";
import { openApiDocument } from "./document.ts";

// biome-ignore lint/suspicious/noExplicitAny: the test walks a JSON document by known paths
type Json = Record<string, any>;

describe("openApiDocument", () => {
  const doc = openApiDocument("/api") as Json;
  const webhook = doc.components.schemas.webhook as Json;

  it("is OpenAPI 3 with version 1.0.0 and the global bearer-JWT scheme named apiKey", () => {
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.version).toBe("1.0.0");
    expect(doc.security).toEqual([{ apiKey: [] }]);
    expect(doc.components.securitySchemes.apiKey).toMatchObject({
      type: "http",
      scheme: "bearer",
      bearerFormat: "JWT",
    });
  });

  it("marks deprecated, read-only and write-only fields of the webhook object", () => {
    expect(webhook.properties.kind).toMatchObject({ deprecated: true, readOnly: true });
    expect(webhook.properties.userId).toMatchObject({ deprecated: true, readOnly: true });
    for (const f of ["id", "createdAt", "status"]) expect(webhook.properties[f].readOnly).toBe(true);
    expect(webhook.properties.sharedSecret.writeOnly).toBe(true);
    expect(webhook.additionalProperties).toBe(false);
    expect(webhook.required.sort()).toEqual(["name", "url"]);
  });

  it("documents the url pattern, the event list and the empty-events choice", () => {
    expect(webhook.properties.url.pattern).toBe("^http(s)?://");
    expect(webhook.properties.events.items.enum).toContain("stream.started");
    expect(webhook.properties.events.description).toMatch(/Absent: every kind; an empty list: none/);
    expect(webhook.properties.sharedSecret.description).toMatch(/empty string removes/);
  });

  it("has the five webhook operations, updateWebhook on PUT /webhook/{id}", () => {
    expect(doc.paths["/webhook/{id}"].put.operationId).toBe("updateWebhook");
    expect(Object.keys(doc.paths["/webhook"]).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/webhook/{id}"]).sort()).toEqual(["delete", "get", "put"]);
    expect(doc.paths["/webhook/{id}"].put.responses.default.content["application/json"].schema.$ref).toBe(
      "#/components/schemas/error",
    );
  });

  it("documents the intake and the log routes the SDK calls", () => {
    expect(doc.paths["/events"].post.responses["202"]).toBeDefined();
    expect(
      doc.paths["/events"].post.requestBody.content["application/json"].schema.properties.event.enum,
    ).toContain("stream.started");
    expect(doc.paths["/webhook/{id}/log"].get.operationId).toBe("getWebhookLogs");
    expect(doc.paths["/webhook/{id}/log/{logId}"].get.operationId).toBe("getWebhookLog");
    expect(doc.paths["/webhook/{id}/log/{logId}/resend"].post.operationId).toBe("resendWebhook");
    expect(doc.components.schemas.webhookLog.properties.duration.type).toBe("number");
  });

  it("describes the error object with at least one message", () => {
    expect(doc.components.schemas.error.properties.errors.minItems).toBe(1);
  });
});
