// Installs the Webhook CRD for tests: the generated one from deploy/crds when it exists; until it
// lands (it is generated from src/schema), a minimal stand-in with the same group, version, names,
// and a status subresource, so the controller can be tested against a real API server now.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { waitFor } from "../../../src/dev/cluster/process.ts";

export const WEBHOOK_CRD_FILE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../deploy/crds/webhooks.livepeer.org.yaml",
);

const STAND_IN = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: webhooks.livepeer.org
spec:
  group: livepeer.org
  names: { kind: Webhook, listKind: WebhookList, plural: webhooks, singular: webhook, shortNames: [wh], categories: [livepeer] }
  scope: Namespaced
  versions:
    - name: v1alpha1
      served: true
      storage: true
      subresources: { status: {} }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, x-kubernetes-preserve-unknown-fields: true }
            status:
              type: object
              x-kubernetes-preserve-unknown-fields: true
              properties:
                observedGeneration: { type: integer }
                conditions:
                  type: array
                  x-kubernetes-list-type: map
                  x-kubernetes-list-map-keys: [type]
                  items:
                    type: object
                    required: [type, status]
                    properties:
                      type: { type: string }
                      status: { type: string }
                      reason: { type: string }
                      message: { type: string }
                      observedGeneration: { type: integer }
                      lastTransitionTime: { type: string, format: date-time }
`;

/** Applies the CRD (idempotent; shared by test files) and waits until the API serves it. */
export async function installWebhookCrd(
  kubectl: (args: string[], input?: string) => Promise<string>,
): Promise<string> {
  let source = WEBHOOK_CRD_FILE;
  if (existsSync(WEBHOOK_CRD_FILE)) {
    await kubectl(["apply", "--server-side", "--force-conflicts", "-f", WEBHOOK_CRD_FILE]);
  } else {
    source = "stand-in (deploy/crds/webhooks.livepeer.org.yaml not generated yet)";
    const dir = mkdtempSync(path.join(os.tmpdir(), "lpo-crd-"));
    try {
      const file = path.join(dir, "webhooks.yaml");
      writeFileSync(file, STAND_IN);
      // Never overwrite the real CRD if another test file installed it.
      const existing = await kubectl([
        "get",
        "crd",
        "webhooks.livepeer.org",
        "--ignore-not-found",
        "-o",
        "name",
      ]);
      if (!existing.trim()) await kubectl(["apply", "--server-side", "-f", file]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  await waitFor(
    "the Webhook CRD to be established",
    async () => (await kubectl(["get", "webhooks.livepeer.org", "-A", "-o", "name"])) !== undefined,
    30_000,
  );
  return source;
}
