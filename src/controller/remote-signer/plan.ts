// Everything a RemoteSigner should have, computed from what was observed (pure: tests compare built
// objects without a cluster): the node's pods, config and Services from the node-pod builder in the
// signer role, its disruption budget, NetworkPolicy and identity, what it offers for remote
// discovery, and what holds the rollout.
import type { V1EnvVar } from "@kubernetes/client-node";
import type { FlagProblem } from "../../node/config/index.ts";
import type { StoredRemoteSigner } from "../../schema/remote-signer.ts";
import type { DevnetResolution } from "../devnet/deployment-config-map.ts";
import { type AddressMode, type OrchestratorView, orchestratorPool, type Pool } from "../gateway/pool.ts";
import { buildNodePod, type NodePod } from "../node-pod/index.ts";
import { devnetHold, type Hold } from "../node-status/holds.ts";
import {
  disruptionBudget,
  keystoreRole,
  keystoreRoleBinding,
  networkPolicy,
  type SignerChildrenInput,
  serviceAccount,
} from "./children.ts";
import { HOOK_TOKEN_ANNOTATION, SIGNER_HOOKS_KEYS, signerChildNames } from "./names.ts";
import { signerRole } from "./role.ts";

export interface SignerPlanInput {
  signer: StoredRemoteSigner;
  defaultImage: string;
  devnet?: DevnetResolution;
  /** The Orchestrators of the signer's namespace (for spec.discovery). */
  orchestrators: readonly OrchestratorView[];
  addressing: AddressMode;
  /** Gateways of the namespace whose spec.remoteSigner names this signer. */
  gateways: readonly string[];
  /** Whether the controller knows the URL of the API server's node hooks. */
  hooksConfigured: boolean;
  /** The digest of the token in the signer's hooks Secret, once that Secret exists. */
  hookTokenDigest?: string;
  operatorNamespace?: string;
}

type Child = Record<string, unknown> & { metadata: { name: string; namespace: string } };

export interface SignerPlan {
  node: NodePod;
  /** PodDisruptionBudget (replicas > 1), NetworkPolicy, ServiceAccount, Role, RoleBinding. */
  children: {
    disruptionBudget?: Child;
    networkPolicy: Child;
    serviceAccount: Child;
    role: Child;
    roleBinding: Child;
  };
  /** spec.discovery: what the signer offers (its discovery hook answers with pool.given). */
  pool?: Pool;
  holds: Hold[];
  problems: FlagProblem[];
  /** Nothing of a signer is set live: every change rolls its pods. */
  liveChanges: [];
}

export function planSigner(input: SignerPlanInput): SignerPlan {
  const { signer } = input;
  const { spec } = signer;
  const name = signer.metadata?.name ?? "";
  const namespace = signer.metadata?.namespace ?? "default";
  const names = signerChildNames(name);
  const devnet: DevnetResolution = input.devnet ?? { state: "unused" };
  const fromHooksSecret = (variable: string, key: string): V1EnvVar => ({
    name: variable,
    valueFrom: { secretKeyRef: { name: names.hooksSecret, key } },
  });
  // URLs with the token reach the node from its Secret, never its ConfigMap.
  const env: V1EnvVar[] = input.hooksConfigured
    ? [
        fromHooksSecret("LP_REMOTESIGNERWEBHOOKURL", SIGNER_HOOKS_KEYS.authWebhookUrl),
        ...(spec.discovery ? [fromHooksSecret("LP_ORCHWEBHOOKURL", SIGNER_HOOKS_KEYS.orchWebhookUrl)] : []),
      ]
    : [];
  const podTemplate = {
    ...spec.podTemplate,
    // The keystore's only reader (children.ts); a user's own account would lose that proof.
    serviceAccountName: names.serviceAccount,
    ...(input.hookTokenDigest
      ? { annotations: { ...spec.podTemplate?.annotations, [HOOK_TOKEN_ANNOTATION]: input.hookTokenDigest } }
      : {}),
  };
  const node = buildNodePod(signerRole(spec.port), {
    name,
    namespace,
    instance: name,
    replicas: spec.replicas,
    image: spec.image ?? input.defaultImage,
    extraArgs: spec.extraArgs,
    facts: { spec, ...(devnet.state === "resolved" ? { devnet } : {}) },
    env,
    secrets: spec.keystoreSecret ? { keystore: spec.keystoreSecret } : {},
    podTemplate,
    service: { type: "ClusterIP", ports: { http: spec.port } },
  });
  const c: SignerChildrenInput = {
    name,
    namespace,
    names,
    replicas: spec.replicas,
    httpPort: spec.port,
    keystoreSecret: spec.keystoreSecret ?? "",
    gateways: input.gateways,
    namespaces: spec.access?.namespaces ?? [],
    ...(input.operatorNamespace ? { operatorNamespace: input.operatorNamespace } : {}),
  };
  const budget = disruptionBudget(c);
  const pool = spec.discovery
    ? offered(
        orchestratorPool(
          spec.discovery.orchestratorSelector,
          input.orchestrators,
          input.addressing,
          () => undefined,
        ),
        input.orchestrators,
        spec.discovery.capabilities,
      )
    : undefined;
  return {
    node,
    children: {
      ...(budget ? { disruptionBudget: budget } : {}),
      networkPolicy: networkPolicy(c),
      serviceAccount: serviceAccount(c),
      role: keystoreRole(c),
      roleBinding: keystoreRoleBinding(c),
    },
    ...(pool ? { pool } : {}),
    holds: holds(devnet, input),
    problems: node.problems,
    liveChanges: [],
  };
}

/** spec.discovery.capabilities: only orchestrators whose AI models serve one ("pipeline" or "pipeline/model"). */
function offered(
  pool: Pool,
  orchestrators: readonly OrchestratorView[],
  capabilities?: readonly string[],
): Pool {
  if (!capabilities?.length) return pool;
  const serves = (name: string) => {
    const models = orchestrators.find((o) => o.metadata?.name === name)?.status?.ai?.models ?? [];
    return models.some(
      (m) =>
        m.ready && (capabilities.includes(m.pipeline) || capabilities.includes(`${m.pipeline}/${m.modelId}`)),
    );
  };
  const given = pool.given.filter((g) => serves(g.name));
  const leftOut = pool.given
    .filter((g) => !serves(g.name))
    .map((g) => ({ name: g.name, reason: `serves none of ${capabilities.join(", ")}` }));
  return { selected: pool.selected, given, leftOut: [...pool.leftOut, ...leftOut] };
}

function holds(devnet: DevnetResolution, input: SignerPlanInput): Hold[] {
  const out: Hold[] = [];
  const devnetHeld = devnetHold(devnet);
  if (devnetHeld) out.push(devnetHeld);
  if (!input.hooksConfigured) {
    out.push({
      reason: "AuthHookUnavailable",
      message:
        "a remote signer needs the operator's auth hook (-remoteSignerWebhookUrl: go-livepeer refuses to start a signer reachable in the cluster without one), but the controller was started without --node-hooks-url (the Helm chart sets it when api.enabled is true): enable the API",
      blocksRollout: true,
    });
  } else if (!input.hookTokenDigest) {
    out.push({
      reason: "HooksSecretPending",
      message: `waiting for the Secret ${signerChildNames(input.signer.metadata?.name ?? "").hooksSecret} that carries the signer's hook URLs`,
      blocksRollout: true,
    });
  }
  return out;
}
