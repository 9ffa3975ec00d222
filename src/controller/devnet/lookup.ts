// Reads the devnet deployment a resource names: from the cache (which holds only labelled
// ConfigMaps, reduced to what is read), and on a miss from the API server once, to tell "not
// there" from "there but not labelled" - the fix differs.
import { ConfigMaps, isNotFound, type KubeClient, type KubeObject, keyFor } from "../../kube/index.ts";
import type { CacheReader } from "../runtime/index.ts";
import {
  type DevnetChainSpec,
  type DevnetResolution,
  devnetNeeded,
  isDevnetConfigMap,
  resolveDevnet,
} from "./deployment-config-map.ts";

export async function readDevnet(
  spec: DevnetChainSpec,
  namespace: string,
  cache: CacheReader,
  client: KubeClient,
): Promise<DevnetResolution> {
  if (!spec.devnet || !devnetNeeded(spec)) return { state: "unused" };
  const cached = cache.get<KubeObject & { data?: Record<string, string> }>(
    ConfigMaps,
    keyFor(namespace, spec.devnet),
  );
  if (cached && isDevnetConfigMap(cached))
    return resolveDevnet(spec, namespace, { found: true, data: cached.data });
  let exists = !!cached;
  if (!exists) {
    exists = await client.get(ConfigMaps, namespace, spec.devnet).then(
      () => true,
      (err) => {
        if (isNotFound(err)) return false;
        throw err;
      },
    );
  }
  return resolveDevnet(spec, namespace, { found: false, unlabelled: exists });
}
