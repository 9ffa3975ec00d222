// The keystore Secret an on-chain Orchestrator names (spec.keystoreSecret): it must exist, hold
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
import type { CacheReader } from "../runtime/index.ts";
import type { Orchestrator } from "./resource.ts";

export const KEYSTORE_KEYS = ["key.json", "password"] as const;

export type KeystoreVerdict =
  | { state: "unused" }
  | { state: "ok"; secret: string }
  | { state: "missing"; secret: string }
  | { state: "missing-keys"; secret: string; missing: string[]; present: string[] }
  | { state: "empty-password"; secret: string }
  | { state: "trailing-newline"; secret: string; finding: Finding }
  | { state: "unreadable"; secret: string; error: string };

/** The Secret the node pod mounts as its keystore (as the plan mounts it: on chain only). */
export function keystoreSecretOf(orch: Orchestrator): string | undefined {
  const { keystoreSecret, network } = orch.spec;
  return keystoreSecret && network !== "offchain" ? keystoreSecret : undefined;
}

/** What the key names alone say; undefined when the password has to be looked at. */
export function keystoreFromKeys(
  secret: string,
  keys: readonly string[] | undefined,
): KeystoreVerdict | undefined {
  if (keys === undefined) return { state: "missing", secret };
  const missing = KEYSTORE_KEYS.filter((k) => !keys.includes(k));
  if (missing.length > 0) return { state: "missing-keys", secret, missing, present: [...keys].sort() };
  return undefined;
}

/** What the password says (pure; `where` names the Secret and key for the finding). */
export function keystoreFromPassword(secret: string, password: string, where: string): KeystoreVerdict {
  if (password.length === 0) return { state: "empty-password", secret };
  const finding = passwordTrailingNewline(password, where);
  return finding ? { state: "trailing-newline", secret, finding } : { state: "ok", secret };
}

type CachedSecret = KubeObject & { dataKeys?: string[]; data?: Record<string, string> };

export class KeystoreCheck {
  readonly #client: KubeClient;
  readonly #cache: CacheReader;
  /** Per Secret: the verdict on the version last read (never the password). */
  readonly #verdicts = new Map<string, { resourceVersion: string; verdict: KeystoreVerdict }>();

  constructor(client: KubeClient, cache: CacheReader) {
    this.#client = client;
    this.#cache = cache;
  }

  async check(orch: Orchestrator): Promise<KeystoreVerdict> {
    const secret = keystoreSecretOf(orch);
    if (!secret) return { state: "unused" };
    const ns = orch.metadata?.namespace;
    const key = keyFor(ns, secret);
    const cached = this.#cache.get<CachedSecret>(Secrets, key);
    const keys = cached ? (cached.dataKeys ?? Object.keys(cached.data ?? {})) : undefined;
    const fromKeys = keystoreFromKeys(secret, keys);
    if (fromKeys) {
      this.#verdicts.delete(key);
      return fromKeys;
    }
    const version = cached?.metadata?.resourceVersion ?? "";
    const known = this.#verdicts.get(key);
    if (known && known.resourceVersion === version) return known.verdict;
    let verdict: KeystoreVerdict;
    try {
      const full = await this.#client.get<KubeObject & { data?: Record<string, string> }>(
        Secrets,
        ns,
        secret,
      );
      const password = Buffer.from(full.data?.password ?? "", "base64").toString("utf8");
      verdict = keystoreFromPassword(secret, password, `Secret ${ns}/${secret} key "password"`);
    } catch (err) {
      if (isNotFound(err)) return { state: "missing", secret };
      // Not remembered: the next reconcile tries again.
      return { state: "unreadable", secret, error: errorMessage(err) };
    }
    this.#verdicts.set(key, { resourceVersion: version, verdict });
    return verdict;
  }
}
