// Restarting one node pod: delete it (its StatefulSet recreates it from the current template and
// ConfigMap), guarded by its uid so a pod that was already replaced is never deleted by mistake.
import { isConflict, isNotFound, type KubeClient, Pods, resourcePath } from "../../kube/index.ts";

/** True when this pod was deleted, false when it was already gone or replaced. */
export async function restartPod(
  client: KubeClient,
  namespace: string,
  name: string,
  uid: string | undefined,
): Promise<boolean> {
  try {
    await client.request("DELETE", resourcePath(Pods, { namespace, name }), {
      ...(uid ? { body: { preconditions: { uid } } } : {}),
    });
    return true;
  } catch (err) {
    // 409: the precondition failed, a newer pod has the name; 404: gone already.
    if (isNotFound(err) || isConflict(err)) return false;
    throw err;
  }
}
