// Who is calling, from a verified token's claims (contract): `sub` = user id (required),
// `projectId` (optional; absent = the user's default project), `scope` (space-separated:
// `admin` acts on every tenant, `events:write` may publish events, `sign` may have a remote
// signer pay for it as the tenant named by `sub`, `sign:<namespace>/<name>` through that
// RemoteSigner only).
import { unauthenticated } from "../errors/http-error.ts";

export const DEFAULT_PROJECT = "default";
export const ADMIN_SCOPE = "admin";
export const EVENTS_WRITE_SCOPE = "events:write";
/** A tenant's signing token: any RemoteSigner that lists the tenant may pay for it. */
export const SIGNING_SCOPE = "sign";

/** The scope of a signing token good at one RemoteSigner only. */
export function signerSigningScope(namespace: string, name: string): string {
  return `${SIGNING_SCOPE}:${namespace}/${name}`;
}

/** Whether the token's scopes let a RemoteSigner pay for its subject (admin alone does not). */
export function maySign(scopes: ReadonlySet<string>, namespace: string, name: string): boolean {
  return scopes.has(SIGNING_SCOPE) || scopes.has(signerSigningScope(namespace, name));
}

export interface Principal {
  userId: string;
  projectId: string;
  admin: boolean;
  scopes: ReadonlySet<string>;
}

const MAX_ID_LENGTH = 253;
// Ids end up in label values (hashed when needed) and log lines: no control characters.
const PRINTABLE = /^[^\p{Cc}]+$/u;

function identifier(value: unknown, claim: string): string {
  if (typeof value !== "string" || value.length === 0) {
    throw unauthenticated(`token claim '${claim}' must be a non-empty string`);
  }
  if (value.length > MAX_ID_LENGTH || !PRINTABLE.test(value)) {
    throw unauthenticated(`token claim '${claim}' must be at most ${MAX_ID_LENGTH} printable characters`);
  }
  return value;
}

export function principalFromClaims(claims: Record<string, unknown>): Principal {
  if (claims.sub === undefined) throw unauthenticated("token has no 'sub' claim: it must name the user");
  const userId = identifier(claims.sub, "sub");
  const projectId =
    claims.projectId === undefined ? DEFAULT_PROJECT : identifier(claims.projectId, "projectId");
  if (claims.scope !== undefined && typeof claims.scope !== "string") {
    throw unauthenticated("token claim 'scope' must be a space-separated string");
  }
  const scopes = new Set((claims.scope ?? "").split(" ").filter(Boolean));
  return { userId, projectId, admin: scopes.has(ADMIN_SCOPE), scopes };
}

/** Whether `principal` may see and change an object owned by (userId, projectId). */
export function owns(principal: Principal, owner: { userId: string; projectId: string }): boolean {
  return principal.admin || (principal.userId === owner.userId && principal.projectId === owner.projectId);
}
