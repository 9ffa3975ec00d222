// A ValidatingAdmissionPolicy (and its binding) refusing Webhooks outside the namespace the
// webhook API serves: there they would be ignored - no status, no deliveries - so the API server
// says so at apply, naming the namespace. Built here once for the chart (src/generate writes its
// template) and for the embedded default (`npm start` applies it).
import { GROUP } from "./api-group.ts";

export interface WebhookNamespacePolicyOptions {
  /** The namespace the API serves. */
  namespace: string;
  /** Name of the policy and of its binding (cluster-scoped: one per release). */
  name: string;
  labels?: Record<string, string>;
  /** Only Webhooks in namespaces with these labels (tests scope the policy to their own). */
  namespaceSelector?: { matchLabels: Record<string, string> };
}

export const WEBHOOK_NAMESPACE_POLICY_REASON = "Forbidden";

/** CEL that names the namespace the Webhook is in, the one served and the fix. */
function refusal(namespace: string): string {
  return `'Webhook ' + object.metadata.name + ' is in namespace ' + request.namespace + ', which the livepeer-operator webhook API does not serve: it would be ignored (no status, no deliveries). Create Webhooks in namespace ${namespace} (kubectl apply -n ${namespace} -f ..., or POST /api/webhook), or install the operator where you want them'`;
}

export function webhookNamespacePolicy(o: WebhookNamespacePolicyOptions): [object, object] {
  const metadata = { name: o.name, ...(o.labels ? { labels: o.labels } : {}) };
  const policy = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata,
    spec: {
      failurePolicy: "Fail",
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: [GROUP],
            apiVersions: ["*"],
            operations: ["CREATE", "UPDATE"],
            resources: ["webhooks"],
          },
        ],
      },
      validations: [
        {
          expression: `request.namespace == '${o.namespace}'`,
          messageExpression: refusal(o.namespace),
          reason: WEBHOOK_NAMESPACE_POLICY_REASON,
        },
      ],
    },
  };
  const binding = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata,
    spec: {
      policyName: o.name,
      validationActions: ["Deny"],
      ...(o.namespaceSelector ? { matchResources: { namespaceSelector: o.namespaceSelector } } : {}),
    },
  };
  return [policy, binding];
}
