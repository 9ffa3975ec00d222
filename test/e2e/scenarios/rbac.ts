// RBAC: the release's ServiceAccounts may do what the code uses and are denied the rest.
import { describe, expect, it } from "vitest";
import { APP_NS, ctx, kubectlRun } from "../support/cluster.ts";

describe("RBAC", () => {
  it.each([
    ["controller", "create", "statefulsets.apps", APP_NS, true],
    ["controller", "delete", "secrets", APP_NS, false],
    ["controller", "patch", "nodes", undefined, false],
    ["controller", "create", "pods", APP_NS, false],
    // Delivery signs with the webhook's shared secret: the API reads Secrets in its own namespace only.
    ["api", "get", "secrets", "<release>", true],
    ["api", "get", "secrets", APP_NS, false],
    ["api", "list", "orchestrators.livepeer.org", "<release>", false],
  ] as const)("the %s ServiceAccount may %s %s in %s: %s", async (sa, verb, resource, namespace, allowed) => {
    const args = [
      "auth",
      "can-i",
      verb,
      resource,
      `--as=system:serviceaccount:${ctx.namespace}:${ctx.release}-${sa}`,
    ];
    if (namespace) args.push("-n", namespace === "<release>" ? ctx.namespace : namespace);
    // `can-i` answers on stdout and exits 1 for "no".
    const answer = await kubectlRun(args);
    expect({ code: answer.code, out: answer.out.trim().split("\n")[0] }).toEqual(
      allowed ? { code: 0, out: "yes" } : { code: 1, out: "no" },
    );
  });
});
