import { describe, expect, it } from "vitest";
import { HttpError } from "../errors/http-error.ts";
import { owns, principalFromClaims } from "./claims.ts";

function rejection(claims: Record<string, unknown>): HttpError {
  try {
    principalFromClaims(claims);
  } catch (err) {
    if (err instanceof HttpError) return err;
    throw err;
  }
  throw new Error("expected a rejection");
}

describe("principalFromClaims", () => {
  it("takes the user from sub and defaults the project", () => {
    const p = principalFromClaims({ sub: "alice" });
    expect(p).toMatchObject({ userId: "alice", projectId: "default", admin: false });
    expect(p.scopes.size).toBe(0);
  });

  it("reads projectId and the space-separated scopes", () => {
    const p = principalFromClaims({ sub: "ops", projectId: "p1", scope: " admin  events:write " });
    expect(p.projectId).toBe("p1");
    expect(p.admin).toBe(true);
    expect([...p.scopes].sort()).toEqual(["admin", "events:write"]);
  });

  it("does not treat a scope that merely contains 'admin' as admin", () => {
    expect(principalFromClaims({ sub: "a", scope: "administrator admin:read" }).admin).toBe(false);
  });

  it("refuses a token without sub, with 401 and a reason", () => {
    const err = rejection({ projectId: "p" });
    expect(err.status).toBe(401);
    expect(err.messages[0]).toMatch(/sub/);
    expect(err.headers["www-authenticate"]).toMatch(/^Bearer /);
  });

  it.each([
    [{ sub: "" }, /sub/],
    [{ sub: 42 }, /sub/],
    [{ sub: "a\nb" }, /printable/],
    [{ sub: "x".repeat(300) }, /at most/],
    [{ sub: "a", projectId: "" }, /projectId/],
    [{ sub: "a", projectId: ["p"] }, /projectId/],
    [{ sub: "a", scope: ["admin"] }, /scope/],
  ])("refuses malformed claims %j", (claims, message) => {
    expect(rejection(claims).messages[0]).toMatch(message);
  });
});

describe("owns", () => {
  const alice = principalFromClaims({ sub: "alice", projectId: "p1" });
  it("is true only for the same user and project", () => {
    expect(owns(alice, { userId: "alice", projectId: "p1" })).toBe(true);
    expect(owns(alice, { userId: "alice", projectId: "p2" })).toBe(false);
    expect(owns(alice, { userId: "bob", projectId: "p1" })).toBe(false);
  });
  it("is true for an admin whatever the tenant", () => {
    expect(
      owns(principalFromClaims({ sub: "root", scope: "admin" }), { userId: "bob", projectId: "x" }),
    ).toBe(true);
  });
});
