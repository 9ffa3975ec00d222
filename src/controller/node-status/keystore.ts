// The keystore Secret an on-chain node (Orchestrator or Gateway) names (spec.keystoreSecret): it must exist, hold
// key.json and password, and the password must be usable as the node's -ethPassword file - no
// trailing newline, since the node reads the file literally and the unlock then fails.
//
// The Secret is read by name (GET), never listed or watched: the controller has no list/watch on
// Secrets in users' namespaces. Its key names and password are tested and dropped at once; the
// password never reaches a status, an Event, a log line or memory beyond the read. A usable
// keystore is trusted for KEYSTORE_TRUSTED_MS before it is read again; one that is not (missing,
// a key missing, a bad password) is read again on every reconcile, and those Ready reasons are
// polled (revisit.ts: about every 30 s), so a Secret created or fixed later is seen within that.

import {
  errorMessage,
  isNotFound,
  KubeApiError,
  type KubeClient,
  type KubeObject,
  keyFor,
  Secrets,
} from "../../kube/index.ts";
import type { Finding } from "../../node/diagnosis/index.ts";
import { passwordTrailingNewline } from "../../node/diagnosis/index.ts";
import type { ChainSpec } from "../../schema/chain.ts";
import type { Verdict } from "../runtime/index.ts";
import { Remembered } from "./remembered.ts";

export const KEYSTORE_KEYS = ["key.json", "password"] as const;

/** What the keystore Secret is in; keystoreVerdict() says what that means for Ready. */
export type KeystoreState =
  | { state: "unused" }
  | { state: "ok"; secret: string }
  | { state: "missing"; secret: string }
  | { state: "missing-keys"; secret: string; missing: string[]; present: string[] }
  | { state: "empty-password"; secret: string }
  | { state: "trailing-newline"; secret: string; finding: Finding }
  | { state: "unreadable"; secret: string; error: string };

/** What the keystore check reads of an Orchestrator or a Gateway. */
export interface KeystoreOwner {
  metadata?: { namespace?: string | undefined };
  spec: Pick<ChainSpec, "keystoreSecret" | "network">;
}

/** The Secret the node pod mounts as its keystore (as the plan mounts it: on chain only). */
export function keystoreSecretOf(orch: KeystoreOwner): string | undefined {
  const { keystoreSecret, network } = orch.spec;
  return keystoreSecret && network !== "offchain" ? keystoreSecret : undefined;
}

/** What the key names alone say; undefined when the password has to be looked at. */
export function keystoreFromKeys(
  secret: string,
  keys: readonly string[] | undefined,
): KeystoreState | undefined {
  if (keys === undefined) return { state: "missing", secret };
  const missing = KEYSTORE_KEYS.filter((k) => !keys.includes(k));
  if (missing.length > 0) return { state: "missing-keys", secret, missing, present: [...keys].sort() };
  return undefined;
}

/** What the password says (pure; `where` names the Secret and key for the finding). */
export function keystoreFromPassword(secret: string, password: string, where: string): KeystoreState {
  if (password.length === 0) return { state: "empty-password", secret };
  const finding = passwordTrailingNewline(password, where);
  return finding ? { state: "trailing-newline", secret, finding } : { state: "ok", secret };
}

const CREATE_KEYSTORE = (ns: string, name: string) =>
  `printf '%s' "$PASSWORD" | kubectl create secret generic ${name} -n ${ns} --from-file=key.json=<keystore file> --from-file=password=/dev/stdin`;

/**
 * Ready=False for a keystore Secret the node cannot start with; undefined when it can (a
 * password with a newline is a finding instead).
 */
export function keystoreVerdict(keystore: KeystoreState, ns: string): Verdict | undefined {
  if (!("secret" in keystore)) return undefined;
  const where = `Secret ${ns}/${keystore.secret} (spec.keystoreSecret)`;
  switch (keystore.state) {
    case "missing":
      return {
        status: "False",
        reason: "KeystoreSecretNotFound",
        message: `${where} does not exist: create it with keys key.json and password, e.g. ${CREATE_KEYSTORE(ns, keystore.secret)}`,
      };
    case "missing-keys":
      return {
        status: "False",
        reason: "KeystoreSecretKeyMissing",
        message: `${where} has no key ${keystore.missing.map((k) => `"${k}"`).join(" or ")} (it has: ${
          keystore.present.join(", ") || "no keys"
        }): the node mounts key.json as its keystore and password as its -ethPassword file`,
      };
    case "empty-password":
      return {
        status: "False",
        reason: "KeystorePasswordEmpty",
        message: `${where} key "password" is empty: put the keystore's password in it, e.g. ${CREATE_KEYSTORE(ns, keystore.secret)}`,
      };
    case "unreadable":
      return {
        status: "False",
        reason: "KeystoreSecretUnreadable",
        message: `could not read ${where}: ${keystore.error}`,
      };
    default:
      return undefined;
  }
}

/**
 * What a Secret's data (base64 values, as the API returns them) says about it as a keystore
 * (pure; `ns` names it in the finding).
 */
export function keystoreFromData(
  secret: string,
  data: Record<string, string> | undefined,
  ns: string,
): KeystoreState {
  const fromKeys = keystoreFromKeys(secret, Object.keys(data ?? {}));
  if (fromKeys) return fromKeys;
  const password = Buffer.from(data?.password ?? "", "base64").toString("utf8");
  return keystoreFromPassword(secret, password, `Secret ${ns}/${secret} key "password"`);
}

/** How long a usable keystore's reading is trusted before the Secret is read again. */
export const KEYSTORE_TRUSTED_MS = 60_000;

export class KeystoreCheck {
  readonly #client: KubeClient;
  /** Per Secret (`namespace/name`): that it was usable when last read (never the password). */
  readonly #usable: Remembered<KeystoreState>;

  constructor(client: KubeClient, o: { trustedMs?: number; now?: () => number } = {}) {
    this.#client = client;
    this.#usable = new Remembered(o.trustedMs ?? KEYSTORE_TRUSTED_MS, o.now);
  }

  async check(owner: KeystoreOwner): Promise<KeystoreState> {
    const secret = keystoreSecretOf(owner);
    if (!secret) return { state: "unused" };
    const ns = owner.metadata?.namespace ?? "default";
    const key = keyFor(ns, secret);
    const known = this.#usable.get(key);
    if (known) return known;
    let data: Record<string, string> | undefined;
    try {
      data = (await this.#client.get<KubeObject & { data?: Record<string, string> }>(Secrets, ns, secret))
        .data;
    } catch (err) {
      if (isNotFound(err)) return { state: "missing", secret };
      return { state: "unreadable", secret, error: unreadable(err, ns) };
    }
    const state = keystoreFromData(secret, data, ns);
    if (state.state === "ok") this.#usable.set(key, state);
    return state;
  }
}

function unreadable(err: unknown, ns: string): string {
  const message = errorMessage(err);
  if (err instanceof KubeApiError && err.status === 403) {
    return `${message}: the controller's ServiceAccount needs get on Secrets in ${ns} (the chart grants it in every namespace the controller watches)`;
  }
  return message;
}
