// Who is calling, from a verified token's claims (contract): `sub` = user id (required),
// `projectId` (optional; absent = the user's default project), `scope` (space-separated:
// `admin` acts on every tenant, `events:write` may publish events).
import { unauthenticated } from "../errors/http-error.ts";

export const DEFAULT_PROJECT = "default";
export const ADMIN_SCOPE = "admin";
export const EVENTS_WRITE_SCOPE = "events:write";

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
