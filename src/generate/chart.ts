// deploy/helm/livepeer-operator/Chart.yaml, generated: its version and appVersion are
// package.json's, and its Artifact Hub annotations come from what they describe - the CRDs from
// the schemas, their examples from examples/, the images from images.ts, the changes from this
// version's section of CHANGELOG.md. A release edits package.json and CHANGELOG.md only.
import { readFileSync } from "node:fs";
import path from "node:path";
import { dump, loadAll } from "js-yaml";
import { OPERATOR_REPOSITORY, SIMULATOR_REPOSITORY } from "../dev/image/images.ts";
import { parseSemVer } from "../release/semver.ts";
import { customResourceType } from "../schema/api-group.ts";
import { GENERATED_HEADER } from "../schema/crd.ts";
import type { GeneratedFile } from "../schema/crd-files.ts";
import { CUSTOM_RESOURCES } from "../schema/resources.ts";

export const CHART_FILE = "deploy/helm/livepeer-operator/Chart.yaml";

/** One example per kind, shown on Artifact Hub (artifacthub.io/crdsExamples). */
export const CRD_EXAMPLE_FILES: Record<string, string> = {
  Orchestrator: "examples/orchestrator-rtx3090.yaml",
  Gateway: "examples/gateway-selector.yaml",
  RemoteSigner: "examples/remote-signer-devnet.yaml",
  Webhook: "examples/webhook.yaml",
};

/** Keep a Changelog headings -> Artifact Hub change kinds. */
const CHANGE_KINDS: Record<string, string> = {
  Added: "added",
  Changed: "changed",
  Deprecated: "deprecated",
  Removed: "removed",
  Fixed: "fixed",
  Security: "security",
};

export interface ChartChange {
  kind: string;
  description: string;
}

/**
 * The changes of one version's section of a Keep a Changelog file ("Unreleased" for a
 * pre-release version): each bullet under Added/Changed/... with its continuation lines joined.
 */
export function changesOf(changelog: string, version: string): ChartChange[] {
  const heading = parseSemVer(version)?.prerelease.length ? "Unreleased" : version;
  const lines = changelog.split("\n");
  const start = lines.findIndex((l) => l.startsWith(`## [${heading}]`));
  if (start < 0) throw new Error(`CHANGELOG.md has no section '## [${heading}]' for version ${version}`);
  const changes: ChartChange[] = [];
  let kind: string | undefined;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith("## ")) break;
    const sub = /^### (.+)$/.exec(line);
    if (sub) {
      kind = CHANGE_KINDS[sub[1]!.trim()];
      continue;
    }
    if (!kind) continue;
    if (line.startsWith("- ")) changes.push({ kind, description: line.slice(2).trim() });
    else if (/^\s+\S/.test(line) && changes.length)
      changes[changes.length - 1]!.description += ` ${line.trim()}`;
  }
  // Artifact Hub shows plain text: drop Markdown emphasis and code marks.
  return changes.map((c) => ({ ...c, description: c.description.replace(/\*\*|`/g, "") }));
}

function exampleOf(root: string, kind: string): unknown {
  const file = CRD_EXAMPLE_FILES[kind];
  if (!file) throw new Error(`no example file for ${kind} in CRD_EXAMPLE_FILES`);
  const docs = loadAll(readFileSync(path.join(root, file), "utf8")) as Array<{ kind?: string }>;
  const doc = docs.find((d) => d?.kind === kind);
  if (!doc) throw new Error(`${file} holds no ${kind}`);
  return doc;
}

const yamlText = (value: unknown) => dump(value, { lineWidth: -1, noRefs: true });

export function chartYaml(root: string): string {
  const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string };
  const changelog = readFileSync(path.join(root, "CHANGELOG.md"), "utf8");
  const crds = CUSTOM_RESOURCES.map((def) => {
    const t = customResourceType(def);
    return {
      kind: def.kind,
      version: t.version,
      name: `${t.plural}.${t.group}`,
      displayName: def.kind,
      description: def.description,
    };
  });
  const chart = {
    apiVersion: "v2",
    name: "livepeer-operator",
    description:
      "Run Livepeer orchestrators, gateways and webhooks on Kubernetes GPU clusters, with a webhook API compatible with the hosted service's SDK.",
    type: "application",
    version: pkg.version,
    appVersion: pkg.version,
    // ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1) is GA since 1.30.
    kubeVersion: ">=1.30.0-0",
    keywords: ["livepeer", "video", "transcoding", "gpu", "operator"],
    annotations: {
      "artifacthub.io/operator": "true",
      // Level 1 is what is proven. Level 2 (Seamless Upgrades) waits for session-aware node
      // rollouts and the upgrade-from-the-previous-release e2e (issue 32).
      "artifacthub.io/operatorCapabilities": "Basic Install",
      "artifacthub.io/crds": yamlText(crds),
      "artifacthub.io/crdsExamples": yamlText(CUSTOM_RESOURCES.map((def) => exampleOf(root, def.kind))),
      "artifacthub.io/images": yamlText([
        { name: OPERATOR_REPOSITORY, image: `${OPERATOR_REPOSITORY}:${pkg.version}` },
        { name: SIMULATOR_REPOSITORY, image: `${SIMULATOR_REPOSITORY}:${pkg.version}` },
      ]),
      "artifacthub.io/changes": yamlText(changesOf(changelog, pkg.version)),
      "artifacthub.io/prerelease": String((parseSemVer(pkg.version)?.prerelease.length ?? 0) > 0),
    },
  };
  return (
    GENERATED_HEADER.replace(
      "from the zod schemas in src/schema",
      "(src/generate/chart.ts) from package.json, CHANGELOG.md, the schemas and examples/",
    ) + yamlText(chart)
  );
}

export function chartFile(root: string): GeneratedFile {
  return { path: CHART_FILE, content: chartYaml(root) };
}
