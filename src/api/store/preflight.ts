// Before serving: can this process list Webhooks in its namespace? Turns the two usual
// deployment mistakes into errors that say what to run.
import { KubeApiError } from "../../kube/api-error.ts";
import type { KubeClient } from "../../kube/kube-client.ts";
import { Gateways, RemoteSigners, Webhooks } from "../../schema/resources.ts";

export async function preflight(client: KubeClient, namespace: string): Promise<void> {
  try {
    await client.list(Webhooks, { namespace, limit: 1 });
  } catch (err) {
    if (err instanceof KubeApiError && err.status === 404) {
      throw new Error(
        "the Webhook CRD (webhooks.livepeer.org) is not installed in this cluster: kubectl apply --server-side -f deploy/crds/webhooks.livepeer.org.yaml",
      );
    }
    if (err instanceof KubeApiError && err.status === 403) {
      throw new Error(
        `this identity may not list Webhooks in namespace ${namespace}: grant get/list/watch/create/update/delete on webhooks.livepeer.org and create/delete/deletecollection on secrets there (the Helm chart's API role does)`,
      );
    }
    throw new Error(`cannot reach the Kubernetes API to list Webhooks: ${(err as Error).message}`);
  }
}

/** Can this process list Gateways and RemoteSigners in every namespace (the node hooks' cache)? */
export async function preflightNodeHooks(client: KubeClient): Promise<void> {
  for (const [type, kind, crd] of [
    [Gateways, "Gateways", "gateways.livepeer.org"],
    [RemoteSigners, "RemoteSigners", "remotesigners.livepeer.org"],
  ] as const) {
    try {
      await client.list(type, { limit: 1 });
    } catch (err) {
      if (err instanceof KubeApiError && err.status === 404) {
        throw new Error(
          `the ${kind.slice(0, -1)} CRD (${crd}) is not installed in this cluster: kubectl apply --server-side -f deploy/crds/${crd}.yaml, or pass --no-node-hooks`,
        );
      }
      if (err instanceof KubeApiError && err.status === 403) {
        throw new Error(
          `this identity may not list ${kind} in all namespaces: grant list/watch on ${crd} cluster-wide (the Helm chart's API ClusterRole does), or pass --no-node-hooks (Gateways that select Orchestrators and RemoteSigners then cannot be served)`,
        );
      }
      throw new Error(`cannot reach the Kubernetes API to list ${kind}: ${(err as Error).message}`);
    }
  }
  try {
    await client.list(RemoteSigners, { limit: 1 });
  } catch (err) {
    if (err instanceof KubeApiError && err.status === 404) {
      throw new Error(
        "the RemoteSigner CRD (remotesigners.livepeer.org) is not installed in this cluster: kubectl apply --server-side -f deploy/crds/remotesigners.livepeer.org.yaml, or pass --no-node-hooks",
      );
    }
    if (err instanceof KubeApiError && err.status === 403) {
      throw new Error(
        "this identity may not list RemoteSigners in all namespaces: grant get/list/watch on remotesigners.livepeer.org cluster-wide (the Helm chart's API ClusterRole does), or pass --no-node-hooks (remote signers' auth webhook then cannot be served)",
      );
    }
    throw new Error(`cannot reach the Kubernetes API to list RemoteSigners: ${(err as Error).message}`);
  }
}
