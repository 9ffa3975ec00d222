// Day two: `helm upgrade` with a changed value rolls the controller; `helm uninstall` removes the
// release but leaves the CRDs and the JWT Secret its keep policy names. The suite's own
// resources go first (their pods run on the cluster's nodes, and CRs outlive the release).
import { describe, expect, it } from "vitest";
import { waitFor } from "../../../src/dev/cluster/process.ts";
import { APP_NS, core, ctx, helm, kubectl, releasePods, waitPodsReady } from "../support/cluster.ts";

describe("upgrade and uninstall", () => {
  it("helm upgrade with a changed value rolls the controller pods", async () => {
    const before = new Set((await releasePods("controller")).map((p) => p.metadata!.uid!));
    const r = await helm([
      "upgrade",
      ctx.release,
      ctx.chart,
      "-n",
      ctx.namespace,
      "-f",
      ctx.valuesFile,
      "--set",
      "controller.logLevel=debug",
    ]);
    expect(r.code, r.out).toBe(0);
    const after = await waitPodsReady("controller", 2, (p) => !before.has(p.metadata!.uid!));
    for (const p of after) expect(p.spec?.containers[0]?.args).toContain("--log-level=debug");
  }, 300_000);

  it("helm uninstall leaves the CRDs (and the JWT Secret its keep policy names)", async () => {
    await kubectl([
      "delete",
      "gateways.livepeer.org,orchestrators.livepeer.org",
      "--all",
      "-n",
      APP_NS,
      "--wait=true",
    ]);
    await kubectl(["delete", "namespace", APP_NS, "--wait=true"]);
    const r = await helm(["uninstall", ctx.release, "-n", ctx.namespace, "--wait"]);
    expect(r.code, r.out).toBe(0);
    const selector = `app.kubernetes.io/instance=${ctx.release}`;
    await waitFor(
      "the release's pods to go",
      async () =>
        (await core.listNamespacedPod({ namespace: ctx.namespace, labelSelector: selector })).items.length ===
        0,
      90_000,
    );
    const left = await kubectl([
      "get",
      "deployments,services,serviceaccounts,roles,rolebindings,poddisruptionbudgets,secrets,configmaps",
      "-n",
      ctx.namespace,
      "-l",
      selector,
      "-o",
      "name",
    ]);
    expect(left.trim().split("\n").filter(Boolean)).toEqual([`secret/${ctx.release}-api-jwt`]);
    const kept = JSON.parse(
      await kubectl(["get", "secret", `${ctx.release}-api-jwt`, "-n", ctx.namespace, "-o", "json"]),
    ) as { metadata: { annotations?: Record<string, string> } };
    expect(kept.metadata.annotations?.["helm.sh/resource-policy"]).toBe("keep");
    expect(
      (await kubectl(["get", "clusterroles,clusterrolebindings", "-l", selector, "-o", "name"])).trim(),
    ).toBe("");
    const crds = await kubectl(["get", "crds", "-o", "name"]);
    expect(crds).toContain("orchestrators.livepeer.org");
    expect(crds).toContain("webhooks.livepeer.org");
  }, 300_000);
});
