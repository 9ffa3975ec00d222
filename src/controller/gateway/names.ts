// Names of a Gateway's children and the node's ports: one place, so builders, status and tests agree.
import { nodeChildNames } from "../node-pod/index.ts";

export const PORTS = { http: 8935, rtmp: 1935, cli: 5935 } as const;

export const gatewayChildNames = (name: string) => ({
  ...nodeChildNames(name),
  /** The token of the node's hooks (discovery, stream auth) and the URLs that carry it. */
  hooksSecret: `${name}-node-hooks`,
});

/**
 * Keys of the hooks Secret: the token, the URLs the pod reads as LP_ORCHWEBHOOKURL and
 * LP_AUTHWEBHOOKURL, and the one the controller reports ended streams to.
 */
export const HOOKS_SECRET_KEYS = {
  token: "token",
  orchWebhookUrl: "orchWebhookUrl",
  authWebhookUrl: "authWebhookUrl",
  streamEventsUrl: "streamEventsUrl",
} as const;

/** On the pod template: a new token (a deleted Secret) restarts the node with the new URL. */
export const HOOK_TOKEN_ANNOTATION = "livepeer.org/hook-token-digest";
