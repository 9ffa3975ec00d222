// The keystore Secret an on-chain node (Orchestrator or Gateway) names (spec.keystoreSecret): it must exist, hold
// key.json and password, and the password must be usable as the node's -ethPassword file - no
// trailing newline, since the node reads the file literally and the unlock then fails. The cache
// keeps only the Secret's key names; the password is read from the API once per version of the
// Secret, tested, and dropped. It never reaches a status, an Event or a log line.

import {
  errorMessage,
  isNotFound,
  type KubeClient,
  type KubeObject,
  keyFor,
  Secrets,
} from "../../kube/index.ts";
import type { Finding } from "../../node/diagnosis/index.ts";
import { passwordTrailingNewline } from "../../node/diagnosis/index.ts";
import type { ChainSpec } from "../../schema/chain.ts";
import type { CacheReader, Verdict } from "../runtime/index.ts";

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

/** The Secret the node pod mounts as its keystore (as the plan mounts it: on chain only). */
/** What the keystore check reads of an Orchestrator or a Gateway. */
export interface KeystoreOwner {
  metadata?: { namespace?: string | undefined };
  spec: Pick<ChainSpec, "keystoreSecret" | "network">;
}

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

type CachedSecret = KubeObject & { dataKeys?: string[]; data?: Record<string, string> };

export class KeystoreCheck {
  readonly #client: KubeClient;
  readonly #cache: CacheReader;
  /** Per Secret: what the version last read showed (never the password). */
  readonly #states = new Map<string, { resourceVersion: string; state: KeystoreState }>();

  constructor(client: KubeClient, cache: CacheReader) {
    this.#client = client;
    this.#cache = cache;
  }

  async check(orch: KeystoreOwner): Promise<KeystoreState> {
    const secret = keystoreSecretOf(orch);
    if (!secret) return { state: "unused" };
    const ns = orch.metadata?.namespace;
    const key = keyFor(ns, secret);
    const cached = this.#cache.get<CachedSecret>(Secrets, key);
    const keys = cached ? (cached.dataKeys ?? Object.keys(cached.data ?? {})) : undefined;
    const fromKeys = keystoreFromKeys(secret, keys);
    if (fromKeys) {
      this.#states.delete(key);
      return fromKeys;
    }
    const version = cached?.metadata?.resourceVersion ?? "";
    const known = this.#states.get(key);
    if (known && known.resourceVersion === version) return known.state;
    let state: KeystoreState;
    try {
      const full = await this.#client.get<KubeObject & { data?: Record<string, string> }>(
        Secrets,
        ns,
        secret,
      );
      const password = Buffer.from(full.data?.password ?? "", "base64").toString("utf8");
      state = keystoreFromPassword(secret, password, `Secret ${ns}/${secret} key "password"`);
    } catch (err) {
      if (isNotFound(err)) return { state: "missing", secret };
      // Not remembered: the next reconcile tries again.
      return { state: "unreadable", secret, error: errorMessage(err) };
    }
    this.#states.set(key, { resourceVersion: version, state });
    return state;
  }
}
