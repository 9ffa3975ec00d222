// At start, the controller makes the cluster's CRDs the ones it was built with: server-side apply
// with a field manager of its own (livepeer-operator-crds, force: it is the authority on its
// CRDs, also over Helm's crds/ and kubectl), then waits until the API server serves them. It
// never deletes a CRD (its RBAC cannot) and refuses to start against a newer operator's schema
// (crd-policy.ts). docs/install.md explains the choice over a Helm hook.
import {
  CustomResourceDefinitions,
  isNotFound,
  type KubeClient,
  type KubeObject,
  sleep,
} from "../../kube/index.ts";
import { CUSTOM_RESOURCES, customResourceDefinition } from "../../schema/index.ts";
import { type CrdFacts, crdVerdict } from "./crd-policy.ts";

export const CRD_FIELD_MANAGER = "livepeer-operator-crds";

export class CrdsNewerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CrdsNewerError";
  }
}

interface Crd extends KubeObject {
  status?: { conditions?: { type: string; status: string; message?: string }[] };
}

export interface KeepCrdsOptions {
  /** The version the CRDs are annotated with (default: package.json's). */
  operatorVersion?: string;
  log?: (message: string) => void;
  /** How long to wait for the API server to serve the CRDs (default 60 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The CRDs to keep (default: the operator's own, generated from src/schema). */
  crds?: KubeObject[];
  /** Only judge (and refuse a newer schema): apply nothing, wait for nothing. */
  checkOnly?: boolean;
  /**
   * Apply only the CRDs the cluster lacks (creating a CRD disturbs no watch of another kind;
   * changing one cuts every watch of its objects, which waits until this replica leads).
   */
  onlyMissing?: boolean;
}

export interface CrdOutcome {
  name: string;
  action: "apply" | "keep";
  reason: string;
  /** The cluster has no such CRD yet (a first install). */
  missing: boolean;
}

const facts = (o: KubeObject): CrdFacts => ({
  name: o.metadata?.name ?? "",
  annotations: o.metadata?.annotations,
});

/**
 * Applies the operator's CRDs where needed and waits until each is Established (with `checkOnly`,
 * says what it would do); throws CrdsNewerError when one is newer.
 */
export async function keepCrdsCurrent(client: KubeClient, o: KeepCrdsOptions = {}): Promise<CrdOutcome[]> {
  const log = o.log ?? (() => {});
  const own =
    o.crds ??
    (CUSTOM_RESOURCES.map((def) =>
      o.operatorVersion ? customResourceDefinition(def, o.operatorVersion) : customResourceDefinition(def),
    ) as KubeObject[]);
  const found = await Promise.all(
    own.map((crd) =>
      client.get<Crd>(CustomResourceDefinitions, undefined, crd.metadata!.name!).catch((err: unknown) => {
        if (isNotFound(err)) return undefined;
        throw err;
      }),
    ),
  );
  const verdicts = own.map((crd, i) => ({
    crd,
    verdict: crdVerdict(facts(crd), found[i] && facts(found[i]!)),
  }));
  // All or nothing: never half the CRDs of one version and half of another.
  const refused = verdicts.filter((v) => v.verdict.action === "refuse");
  if (refused.length) throw new CrdsNewerError(refused.map((v) => v.verdict.reason).join("; "));

  const outcomes: CrdOutcome[] = verdicts.map(({ crd, verdict }, i) => ({
    name: crd.metadata!.name!,
    action: verdict.action as "apply" | "keep",
    reason: verdict.reason,
    missing: found[i] === undefined,
  }));
  if (o.checkOnly) return outcomes;
  const chosen = verdicts.filter((_, i) => !o.onlyMissing || outcomes[i]!.missing);
  for (const { crd, verdict } of chosen) {
    if (verdict.action === "apply") {
      await client.apply(CustomResourceDefinitions, crd, { fieldManager: CRD_FIELD_MANAGER, force: true });
    }
    log(verdict.reason);
  }
  await waitEstablished(
    client,
    chosen.map((c) => c.crd.metadata!.name!),
    o.timeoutMs ?? 60_000,
    o.signal,
  );
  return outcomes;
}

function condition(crd: Crd, type: string) {
  return crd.status?.conditions?.find((c) => c.type === type);
}

/** Polls each CRD until its Established condition is True, to a deadline. */
async function waitEstablished(client: KubeClient, names: string[], timeoutMs: number, signal?: AbortSignal) {
  const deadline = Date.now() + timeoutMs;
  let pending = names;
  let last = "";
  for (let attempt = 1; ; attempt++) {
    const crds = await Promise.all(
      pending.map((n) => client.get<Crd>(CustomResourceDefinitions, undefined, n)),
    );
    pending = crds
      .filter((c) => condition(c, "Established")?.status !== "True")
      .map((c) => c.metadata!.name!);
    if (!pending.length) return;
    last = crds
      .filter((c) => pending.includes(c.metadata!.name!))
      .map((c) => {
        const names = condition(c, "NamesAccepted");
        return `${c.metadata!.name}: ${names?.status === "False" ? `NamesAccepted=False ${names.message ?? ""}` : "not Established yet"}`;
      })
      .join("; ");
    if (Date.now() >= deadline || signal?.aborted)
      throw new Error(`the API server did not serve the CRDs within ${timeoutMs / 1000} s: ${last}`);
    await sleep(Math.min(100 * attempt, 1000), signal);
  }
}
