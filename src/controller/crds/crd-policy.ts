// Whether the controller may write its CRDs over the ones in the cluster (pure): it applies its
// own unless the cluster's were written by a newer operator with another schema, in which case
// it refuses to start - writing an older schema would make the API server prune the newer
// fields from every stored resource on its next write.
import { compareSemVer, parseSemVer } from "../../release/semver.ts";
import { CRD_OPERATOR_VERSION_ANNOTATION, CRD_SCHEMA_DIGEST_ANNOTATION } from "../../schema/index.ts";

export interface CrdFacts {
  name: string;
  annotations?: Record<string, string> | undefined;
}

export type CrdVerdict =
  | { action: "apply"; reason: string }
  | { action: "keep"; reason: string }
  | { action: "refuse"; reason: string };

/** What to do with the cluster's CRD (`found`, undefined when absent) given the one this operator carries. */
export function crdVerdict(own: CrdFacts, found: CrdFacts | undefined): CrdVerdict {
  const ownVersion = own.annotations?.[CRD_OPERATOR_VERSION_ANNOTATION] ?? "";
  if (!found) return { action: "apply", reason: `${own.name} is not installed: creating it` };
  const theirs = found.annotations?.[CRD_OPERATOR_VERSION_ANNOTATION];
  if (theirs === undefined) {
    return {
      action: "apply",
      reason: `${found.name} carries no ${CRD_OPERATOR_VERSION_ANNOTATION} (installed by hand, by Helm's crds/ or by 0.1.0): updating it to ${ownVersion}`,
    };
  }
  const sameSchema =
    found.annotations?.[CRD_SCHEMA_DIGEST_ANNOTATION] !== undefined &&
    found.annotations[CRD_SCHEMA_DIGEST_ANNOTATION] === own.annotations?.[CRD_SCHEMA_DIGEST_ANNOTATION];
  const a = parseSemVer(theirs);
  const b = parseSemVer(ownVersion);
  if (!a || !b) {
    return {
      action: "refuse",
      reason: `${found.name} has ${CRD_OPERATOR_VERSION_ANNOTATION}: ${JSON.stringify(theirs)}, which this operator (${ownVersion}) cannot compare with its own version: set the annotation to the version of the operator that wrote the CRD, or run with --manage-crds=false and keep the CRDs yourself`,
    };
  }
  const order = compareSemVer(a, b);
  if (order <= 0) {
    return sameSchema && order === 0
      ? { action: "keep", reason: `${found.name} is current (${theirs})` }
      : { action: "apply", reason: `${found.name} was written by ${theirs}: updating it to ${ownVersion}` };
  }
  if (sameSchema) {
    return {
      action: "keep",
      reason: `${found.name} was written by the newer ${theirs} with the same schema as this ${ownVersion}: leaving it as it is`,
    };
  }
  return {
    action: "refuse",
    reason: `${found.name} was written by livepeer-operator ${theirs}, newer than this ${ownVersion}, with another schema: this operator would drop the fields it does not know. Run ${theirs} or newer (helm upgrade to that chart), or, to downgrade on purpose, apply this version's CRDs first as docs/install.md says ("Downgrade")`,
  };
}
