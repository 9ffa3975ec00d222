// The auth hook's ?token= check, per call: a signer node presents the same token on every
// payment, so the token that last matched a signer's published digest is kept (per cached
// signer object: a changed RemoteSigner is a new object, checked against its digest afresh) and
// a presented token is compared with it in constant time; anything else is hashed and compared
// with the digest, as before.
import { timingSafeEqual } from "node:crypto";
import { hookTokenMatches } from "../../schema/node-hooks.ts";

export class HookTokenCheck<K extends { hookTokenDigest: string | undefined }> {
  readonly #matched = new WeakMap<K, Buffer>();

  matches(signer: K, presented: string | undefined): boolean {
    if (typeof presented !== "string" || !presented) return false;
    const known = this.#matched.get(signer);
    if (known) {
      const given = Buffer.from(presented, "utf8");
      if (given.length === known.length && timingSafeEqual(given, known)) return true;
    }
    if (!hookTokenMatches(presented, signer.hookTokenDigest)) return false;
    this.#matched.set(signer, Buffer.from(presented, "utf8"));
    return true;
  }
}
