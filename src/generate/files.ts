// Everything the repository generates from its code, as (path, content) pairs: the CRDs from the
// zod schemas; the reference docs from the schemas, the OpenAPI document and the chart's values
// schema; the chart's alert rules, dashboard and runbook from src/alerts. main.ts writes or checks them; a stale file fails CI.

import { alertFiles } from "../alerts/generated-files.ts";
import { CRD_DIR, generatedFiles as crdFiles, type GeneratedFile } from "../schema/crd-files.ts";
import { chartFile } from "./chart.ts";
import { apiReference } from "./docs/api-reference.ts";
import { helmValuesReference } from "./docs/helm-values.ts";
import { resourceReference } from "./docs/resource-reference.ts";
import { webhookNamespacePolicyTemplate } from "./webhook-namespace-policy-template.ts";

export type { GeneratedFile };

/** Directories whose every file of the given extension must be generated (none left over). */
export const OWNED_DIRS: ReadonlyArray<{ dir: string; ext: string }> = [{ dir: CRD_DIR, ext: ".yaml" }];

export function generatedFiles(root: string): GeneratedFile[] {
  return [
    ...crdFiles(),
    { path: "docs/resources.md", content: resourceReference() },
    { path: "docs/api.md", content: apiReference() },
    { path: "docs/helm-values.md", content: helmValuesReference(root) },
    ...alertFiles(),
    chartFile(root),
    webhookNamespacePolicyTemplate(),
  ];
}
