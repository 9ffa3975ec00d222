// Every file in examples/ is valid: each document parses and passes the schema of its kind, and
// the Secrets the resources point at are in the same file with the keys they need.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadAll } from "js-yaml";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { GatewaySchema } from "./gateway.ts";
import { OrchestratorSchema } from "./orchestrator.ts";
import { RemoteSignerSchema } from "./remote-signer.ts";
import { WebhookSchema } from "./webhook.ts";

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../examples");
const files = readdirSync(dir).filter((f) => f.endsWith(".yaml"));

const schemaOf: Record<string, z.ZodType> = {
  Orchestrator: OrchestratorSchema,
  Gateway: GatewaySchema,
  RemoteSigner: RemoteSignerSchema,
  Webhook: WebhookSchema,
};

interface Doc {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string };
  spec?: Record<string, unknown>;
  stringData?: Record<string, string>;
  data?: Record<string, string>;
}

function docs(file: string): Doc[] {
  return loadAll(readFileSync(path.join(dir, file), "utf8")).filter((d) => d != null) as Doc[];
}

function secretKeys(all: Doc[], name: string): string[] {
  const s = all.find((d) => d.kind === "Secret" && d.metadata?.name === name);
  return s ? Object.keys({ ...s.data, ...s.stringData }) : [];
}

describe("examples", () => {
  it("cover every kind and the documented set-ups", () => {
    const kinds = files.flatMap((f) => docs(f).map((d) => d.kind));
    for (const k of ["Orchestrator", "Gateway", "Webhook", "Secret"]) expect(kinds).toContain(k);
    expect(files.length).toBeGreaterThanOrEqual(6);
  });

  it.each(files)("%s is valid", (file) => {
    const all = docs(file);
    expect(all.length).toBeGreaterThan(0);
    for (const d of all) {
      if (d.kind === "Secret") {
        expect(d.apiVersion).toBe("v1");
        expect(d.metadata?.name).toBeTruthy();
        continue;
      }
      const schema = schemaOf[d.kind ?? ""];
      expect(schema, `${file}: unexpected kind ${d.kind}`).toBeDefined();
      const r = schema!.safeParse(d);
      expect(r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`), file).toEqual(
        [],
      );
      expect(d.metadata?.name, `${file}: ${d.kind} needs metadata.name`).toBeTruthy();
    }
  });

  it.each(files)("%s brings the Secrets its resources reference", (file) => {
    const all = docs(file);
    for (const d of all) {
      const keystore = d.spec?.keystoreSecret;
      if (typeof keystore === "string")
        expect(secretKeys(all, keystore).sort()).toEqual(["key.json", "password"]);
      const ref = d.spec?.sharedSecretRef as { name: string; key: string } | undefined;
      if (ref) expect(secretKeys(all, ref.name)).toContain(ref.key);
      const headers = (
        d.spec?.remoteSigner as { headersSecretRef?: { name: string; key: string } } | undefined
      )?.headersSecretRef;
      if (headers) expect(secretKeys(all, headers.name)).toContain(headers.key);
    }
  });

  it("keystore passwords have no trailing newline (the node reads them byte for byte)", () => {
    for (const f of files) {
      for (const d of docs(f)) {
        const password = d.stringData?.password;
        if (password !== undefined) expect(password).not.toMatch(/[\r\n]$/);
      }
    }
  });
});
