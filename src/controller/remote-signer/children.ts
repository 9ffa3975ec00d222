// The RemoteSigner's children besides the node's own (pure): the disruption budget of its
// replicas, the NetworkPolicy in front of its pods, and the identity its pods run as, which alone
// is granted the keystore Secret (kubectl auth can-i: nobody else in the namespace may read it).
import { MANAGED_BY, nodeLabels } from "../node-pod/index.ts";
import { COMPONENT, SIGNER_CLI_PORT, type SignerChildNames } from "./names.ts";

/** Labels the operator's own pods carry (the Helm chart's): the controller and the API. */
export const OPERATOR_POD_LABELS = { name: "livepeer-operator", components: ["controller", "api"] } as const;

export interface SignerChildrenInput {
  name: string;
  namespace: string;
  names: SignerChildNames;
  replicas: number;
  httpPort: number;
  keystoreSecret: string;
  /** Gateways of the namespace whose spec.remoteSigner names this signer. */
  gateways: readonly string[];
  /** spec.access.namespaces. */
  namespaces: readonly string[];
  /** Where the operator runs (absent: its pods are matched by label in any namespace). */
  operatorNamespace?: string;
}

type Obj = Record<string, unknown> & { metadata: { name: string; namespace: string } };

const meta = (i: SignerChildrenInput, name: string) => ({
  name,
  namespace: i.namespace,
  labels: nodeLabels(i.name, COMPONENT),
});

const nsSelector = (ns: string) => ({ matchLabels: { "kubernetes.io/metadata.name": ns } });

/** At most one signer down at a time; none with a single replica (it would block node drains). */
export function disruptionBudget(i: SignerChildrenInput): Obj | undefined {
  if (i.replicas <= 1) return undefined;
  return {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: meta(i, i.names.disruptionBudget),
    spec: { maxUnavailable: 1, selector: { matchLabels: nodeLabels(i.name, COMPONENT) } },
  };
}

/**
 * Ingress to the signer pods: the HTTP port from the Gateways that name it, the operator's pods
 * and the namespaces spec.access lists; the CLI port (it can spend) from the operator's controller
 * only. Everything else is dropped.
 */
export function networkPolicy(i: SignerChildrenInput): Obj {
  const operator = (components: readonly string[]) => ({
    ...(i.operatorNamespace
      ? { namespaceSelector: nsSelector(i.operatorNamespace) }
      : { namespaceSelector: {} }),
    podSelector: {
      matchLabels: { "app.kubernetes.io/name": OPERATOR_POD_LABELS.name },
      matchExpressions: [{ key: "app.kubernetes.io/component", operator: "In", values: [...components] }],
    },
  });
  const gateways = i.gateways.map((gw) => ({
    podSelector: {
      matchLabels: {
        "app.kubernetes.io/instance": gw,
        "app.kubernetes.io/component": "gateway",
        [MANAGED_BY.label]: MANAGED_BY.value,
      },
    },
  }));
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: meta(i, i.names.networkPolicy),
    spec: {
      podSelector: { matchLabels: nodeLabels(i.name, COMPONENT) },
      policyTypes: ["Ingress"],
      ingress: [
        {
          from: [
            ...gateways,
            operator(OPERATOR_POD_LABELS.components),
            ...i.namespaces.map((ns) => ({ namespaceSelector: nsSelector(ns) })),
          ],
          ports: [{ protocol: "TCP", port: i.httpPort }],
        },
        { from: [operator(["controller"])], ports: [{ protocol: "TCP", port: SIGNER_CLI_PORT }] },
      ],
    },
  };
}

export function serviceAccount(i: SignerChildrenInput): Obj {
  // The pods do not mount its token: the node never calls the Kubernetes API.
  return {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: meta(i, i.names.serviceAccount),
    automountServiceAccountToken: false,
  };
}

/** get on the keystore Secret by name: nothing else, and no list or watch. */
export function keystoreRole(i: SignerChildrenInput): Obj {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: meta(i, i.names.keystoreRole),
    rules: [{ apiGroups: [""], resources: ["secrets"], resourceNames: [i.keystoreSecret], verbs: ["get"] }],
  };
}

export function keystoreRoleBinding(i: SignerChildrenInput): Obj {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: meta(i, i.names.keystoreRole),
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: i.names.keystoreRole },
    subjects: [{ kind: "ServiceAccount", name: i.names.serviceAccount, namespace: i.namespace }],
  };
}
