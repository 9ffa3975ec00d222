// Installs the generated CRDs (deploy/crds) and waits until the API server serves them.
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const CRD_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../deploy/crds");

export async function installCrds(kubectl: (args: string[]) => Promise<string>): Promise<void> {
  const files = readdirSync(CRD_DIR).filter((f) => f.endsWith(".yaml"));
  await kubectl([
    "apply",
    "--server-side",
    "--force-conflicts",
    ...files.flatMap((f) => ["-f", path.join(CRD_DIR, f)]),
  ]);
  await kubectl([
    "wait",
    "--for=condition=Established",
    "--timeout=60s",
    ...files.map((f) => `crd/${f.replace(/\.yaml$/, "")}`),
  ]);
}
