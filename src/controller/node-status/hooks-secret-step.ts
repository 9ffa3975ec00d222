// The hooks Secret step a Gateway and a RemoteSigner share: the Secret whose URLs carry the node's
// token for the operator's API hooks. Created once with a new token; when its URLs are stale (a new
// API base URL, or a hook added since) they are re-rendered with the same token, read back from the
// Secret; current, it is not touched. Returns the token's digest (what the status publishes for the
// API to check the node's calls against). The controller may get Secrets but not list or watch
// them: OwnedSecrets remembers what it read or wrote.
import { applyOwned, type KubeClient, type KubeObject, Secrets } from "../../kube/index.ts";
import { hookTokenDigest } from "../../schema/node-hooks.ts";
import { hooksSecretState } from "../gateway/hooks-secret.ts";
import { newSecretValue } from "../node-pod/index.ts";
import type { OwnedSecrets } from "./owned-secrets.ts";

export interface HooksSecretStep {
  client: KubeClient;
  ownedSecrets: OwnedSecrets;
  /** The Gateway or RemoteSigner that owns the Secret. */
  owner: KubeObject;
  /** The Secret's name, in the owner's namespace. */
  name: string;
  /** The API's base URL as node pods reach it. */
  base: string;
  /** The key that holds the token, and every key a current Secret holds. */
  tokenKey: string;
  keys: readonly string[];
  /** The Secret for a token (pure). */
  render: (token: string) => KubeObject;
}

export async function ensureHooksSecret(s: HooksSecretStep): Promise<string> {
  const state = hooksSecretState(await s.ownedSecrets.read(s.owner, s.name), s.base, s.keys);
  if (state.state === "current") return state.digest;
  let token = newSecretValue();
  if (state.state === "stale") {
    const stored = await s.client.get<KubeObject & { data?: Record<string, string> }>(
      Secrets,
      s.owner.metadata?.namespace ?? "default",
      s.name,
    );
    const value = stored.data?.[s.tokenKey];
    if (value) token = Buffer.from(value, "base64").toString("utf8");
  }
  s.ownedSecrets.wrote(s.owner, await applyOwned(s.client, Secrets, s.owner, s.render(token)));
  return hookTokenDigest(token);
}
