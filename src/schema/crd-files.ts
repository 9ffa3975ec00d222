// The generated files and their contents (pure); generate.ts writes or checks them.
import { crdFileName, crdYaml } from "./crd.ts";
import { CUSTOM_RESOURCES } from "./resources.ts";

export const CRD_DIR = "deploy/crds";

export interface GeneratedFile {
  /** Relative to the repository root. */
  path: string;
  content: string;
}

export function generatedFiles(): GeneratedFile[] {
  return CUSTOM_RESOURCES.map((def) => ({ path: `${CRD_DIR}/${crdFileName(def)}`, content: crdYaml(def) }));
}
