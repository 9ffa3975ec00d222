// Names of a RemoteSigner's children and the node's ports: one place, so builders, status and tests agree.
import { nodeChildNames } from "../node-pod/index.ts";

/** go-livepeer's default CLI port of a remote signer (starter.go RemoteSignerCliPort); in no Service. */
export const SIGNER_CLI_PORT = 3935;

export const COMPONENT = "remote-signer";

export const signerChildNames = (name: string) => ({
  ...nodeChildNames(name),
  /** The auth-hook token and the URLs that carry it (LP_REMOTESIGNERWEBHOOKURL, LP_ORCHWEBHOOKURL). */
  hooksSecret: `${name}-signer-hooks`,
  /** With replicas > 1: at most one signer pod down at a time for voluntary disruptions. */
  disruptionBudget: name,
  /** Who may reach the HTTP port. */
  networkPolicy: name,
  /** The signer pods' identity: the only one granted the keystore Secret. */
  serviceAccount: `${name}-signer`,
  /** get on the keystore Secret, by name, for the service account above. */
  keystoreRole: `${name}-signer-keystore`,
});

export type SignerChildNames = ReturnType<typeof signerChildNames>;

/** Keys of the hooks Secret. */
export const SIGNER_HOOKS_KEYS = {
  token: "token",
  authWebhookUrl: "remoteSignerWebhookUrl",
  orchWebhookUrl: "orchWebhookUrl",
} as const;

/** On the pod template: a new token (a deleted Secret) restarts the node with the new URL. */
export const HOOK_TOKEN_ANNOTATION = "livepeer.org/hook-token-digest";

/** The URL Gateways and SDK apps reach the signer's Service at. */
export const signerServiceUrl = (name: string, namespace: string, port: number): string =>
  `http://${nodeChildNames(name).service}.${namespace}.svc.cluster.local:${port}`;
