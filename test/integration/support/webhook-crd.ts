// Installs the generated Webhook CRD (deploy/crds, from the zod schemas in src/schema) for tests;
// idempotent, so test files running side by side may all call it.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { kubectl } from "./cluster.ts";

export const WEBHOOK_CRD_FILE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../deploy/crds/webhooks.livepeer.org.yaml",
);

export async function installWebhookCrd(): Promise<void> {
  await kubectl(["apply", "--server-side", "--force-conflicts", "-f", WEBHOOK_CRD_FILE]);
  await kubectl(["wait", "--for=condition=Established", "--timeout=60s", "crd/webhooks.livepeer.org"]);
}
