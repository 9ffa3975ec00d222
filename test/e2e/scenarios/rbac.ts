// RBAC: the release's ServiceAccounts may do what the code uses and are denied the rest.
import { describe, expect, it } from "vitest";
import { canI } from "../support/can-i.ts";
import { APP_NS, ctx } from "../support/cluster.ts";

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
    // Misspelled on purpose: kubectl answers "no" to it too (with a warning on stderr); a denial
    // row with such a typo must fail, not pass as least privilege.
    ["api", "get", "secretz", "<release>", "error"],
  ] as const)("the %s ServiceAccount may %s %s in %s: %s", async (sa, verb, resource, namespace, allowed) => {
    const args = [verb, resource, `--as=system:serviceaccount:${ctx.namespace}:${ctx.release}-${sa}`];
    // A cluster-scoped resource is asked with no namespace (else kubectl warns that it is not namespaced).
    if (namespace) args.push("-n", namespace === "<release>" ? ctx.namespace : namespace);
    else args.push("--all-namespaces");
    // kubectl's own "yes" (exit 0) or "no" (exit 1) with nothing on stderr; anything else throws.
    const answer = canI(ctx.kubectl, ctx.kubeconfig, args);
    if (allowed === "error") await expect(answer).rejects.toThrow(/no clean answer[\s\S]*stderr: Warning/);
    else expect(await answer).toBe(allowed);
  });
});
