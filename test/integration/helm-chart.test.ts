// The Helm chart: lint, rendering against committed golden files (a drift fails the test;
// UPDATE_GOLDEN=1 rewrites them), values validation naming the bad value, the RBAC it installs
// proven on the local control plane with `kubectl auth can-i` impersonation, its alert rules
// linted and unit-tested with promtool (one case per alert), the dashboard, and the
// NetworkPolicies and dashboard ConfigMap accepted by the API server (dry run).
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { dump, load, loadAll } from "js-yaml";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { dashboard } from "../../src/alerts/dashboard.ts";
import { promtoolTestFile } from "../../src/alerts/promtool-tests.ts";
import { ALERT_RULES } from "../../src/alerts/rules.ts";
import { ensureBinaries } from "../../src/dev/toolchain/binaries.ts";
import { CUSTOM_RESOURCES } from "../../src/schema/resources.ts";
import { canIAnswer, runCanI } from "../e2e/support/can-i.ts";
import { kubectl, testNamespace } from "./support/cluster.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const chart = path.join(root, "deploy/helm/livepeer-operator");
const golden = path.join(root, "deploy/helm/golden");

function helm(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      inject("helm"),
      [...args, `--kubeconfig=${inject("kubeconfig")}`],
      { maxBuffer: 32 * 1024 * 1024 },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

// The generated JWT secret is random by design: mask it before comparing.
const stable = (yaml: string) => yaml.replace(/(jwt-secret: )\S+/g, "$1<generated>");

async function render(name: string, extra: string[]): Promise<void> {
  const r = await helm([
    "template",
    "lpo",
    chart,
    "-n",
    "livepeer-system",
    "--kube-version=1.36.3",
    ...extra,
  ]);
  expect(r.code, r.out).toBe(0);
  const file = path.join(golden, `${name}.yaml`);
  const got = stable(r.out.replace(/^walk\.go.*\n/gm, ""));
  if (process.env.UPDATE_GOLDEN) writeFileSync(file, got);
  expect(got, `helm template drifted from ${file}: run UPDATE_GOLDEN=1 and review the diff`).toBe(
    readFileSync(file, "utf8"),
  );
}

describe("helm chart", () => {
  it("lints with default and full values", async () => {
    for (const values of [[], ["-f", path.join(golden, "full-values.yaml")]]) {
      const r = await helm(["lint", chart, "--kube-version=1.36.3", ...values]);
      expect(r.code, r.out).toBe(0);
    }
  });

  it("renders the default values as committed", () => render("default", []));
  it("renders the full values as committed", () =>
    render("full", ["-f", path.join(golden, "full-values.yaml")]));

  it("refuses bad values naming the value", async () => {
    const r = await helm([
      "template",
      "lpo",
      chart,
      "--kube-version=1.36.3",
      "--set",
      "api.service.type=Public",
    ]);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain("/api/service/type");
    const typo = await helm([
      "template",
      "lpo",
      chart,
      "--kube-version=1.36.3",
      "--set",
      "controller.replica=2",
    ]);
    expect(typo.out).toMatch(/replica/);
    expect(typo.code).not.toBe(0);
  });

  it("refuses several API replicas on the SQLite delivery store, saying what to use instead", async () => {
    const r = await helm(["template", "lpo", chart, "--kube-version=1.36.3", "--set", "api.replicas=2"]);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain("api.replicas=2 with api.delivery.store=sqlite");
    expect(r.out).toContain("api.delivery.store: postgres");
    const pg = await helm([
      "template",
      "lpo",
      chart,
      "--kube-version=1.36.3",
      "--set",
      "api.replicas=3,api.delivery.store=postgres,api.delivery.postgres.existingSecret=db",
    ]);
    expect(pg.code, pg.out).toBe(0);
    expect(pg.out).not.toContain("kind: PersistentVolumeClaim");
    expect(pg.out).toContain("name: lpo-api\n");
  });

  it("runs the SQLite store as one replica on a kept PVC, replaced with Recreate, without a PDB", async () => {
    const r = await helm(["template", "lpo", chart, "--kube-version=1.36.3"]);
    expect(r.code, r.out).toBe(0);
    const api = r.out.split(/^---$/m).find((d) => /kind: Deployment\n/.test(d) && /name: lpo-api\n/.test(d));
    expect(api).toMatch(/replicas: 1\n/);
    expect(api).toMatch(/strategy:\n\s+type: Recreate/);
    expect(api).toMatch(/claimName: lpo-api-delivery/);
    expect(r.out).toMatch(/kind: PersistentVolumeClaim\nmetadata:\n {2}name: lpo-api-delivery\n/);
    expect(r.out).not.toMatch(/kind: PodDisruptionBudget\nmetadata:\n {2}name: lpo-api\n/);
  });
});

/** `kubectl auth can-i` as a ServiceAccount of the release in `releaseNs`; ALL = every namespace. */
async function can(
  releaseNs: string,
  sa: string,
  verb: string,
  resource: string,
  namespace?: string,
): Promise<boolean> {
  const [kind, sub] = resource.split("/");
  const args = [verb, kind!, `--as=system:serviceaccount:${releaseNs}:${sa}`];
  if (sub) args.push(`--subresource=${sub}`);
  // A cluster-scoped resource is asked with no namespace (else kubectl warns that it is not
  // namespaced, which would make the answer unclean).
  if (namespace === "ALL" || namespace === undefined) args.push("--all-namespaces");
  else args.push("-n", namespace);
  // kubectl's own yes (exit 0) or no (exit 1), nothing on stderr; anything else throws.
  return canIAnswer(await runCanI(inject("kubectl"), inject("kubeconfig"), args), `can-i ${args.join(" ")}`);
}

/** `kubectl auth can-i VERB TYPE/NAME` as a ServiceAccount of the release: a right on one object by name. */
async function canOn(
  releaseNs: string,
  sa: string,
  verb: string,
  type: string,
  name?: string,
): Promise<boolean> {
  const target = name ? `${type}/${name}` : type;
  // Cluster-scoped (CRDs): asked with no namespace, so kubectl has nothing to warn about.
  const args = [verb, target, `--as=system:serviceaccount:${releaseNs}:${sa}`, "--all-namespaces"];
  // kubectl's own yes (exit 0) or no (exit 1), nothing on stderr; anything else throws.
  return canIAnswer(await runCanI(inject("kubectl"), inject("kubeconfig"), args), `can-i ${args.join(" ")}`);
}

const CRD = "customresourcedefinitions.apiextensions.k8s.io";

describe("helm install: least-privilege RBAC", () => {
  let ns: Awaited<ReturnType<typeof testNamespace>>;
  beforeAll(async () => {
    ns = await testNamespace("helm");
    // The control plane is shared with every other test file: the chart's Webhook namespace policy
    // is cluster-wide and would refuse their Webhooks, so it is left out here (crd-rules.test.ts
    // proves the same policy, scoped to its own namespaces by a selector).
    const r = await helm([
      "install",
      "lpo",
      chart,
      "-n",
      ns.name,
      "--wait=false",
      "--set",
      "api.webhookNamespacePolicy=false",
    ]);
    expect(r.code, r.out).toBe(0);
  });
  afterAll(async () => {
    await helm(["uninstall", "lpo", "-n", ns.name]);
    await ns.remove();
  });

  it.each([
    ["lpo-controller", "create", "statefulsets.apps", "video", true],
    ["lpo-controller", "patch", "orchestrators.livepeer.org/status", "video", true],
    ["lpo-controller", "patch", "gateways.livepeer.org/status", "video", true],
    ["lpo-controller", "watch", "gateways.livepeer.org", "video", true],
    ["lpo-controller", "update", "gateways.livepeer.org", "video", false],
    ["lpo-controller", "list", "nodes", undefined, true],
    ["lpo-controller", "delete", "statefulsets.apps", "video", false],
    ["lpo-controller", "delete", "secrets", "video", false],
    ["lpo-controller", "update", "orchestrators.livepeer.org", "video", false],
    ["lpo-controller", "get", "pods/log", "video", true],
    ["lpo-controller", "get", "pods", "video", false],
    ["lpo-controller", "create", "pods", "video", false],
    ["lpo-controller", "delete", "pods", "video", true],
    // Annotations only: the in-place restart request (node-pod/in-place.ts).
    ["lpo-controller", "patch", "pods", "video", true],
    ["lpo-controller", "patch", "pods/status", "video", false],
    ["lpo-controller", "get", "configmaps", "video", true],
    ["lpo-controller", "delete", "configmaps", "video", false],
    ["lpo-controller", "patch", "nodes", undefined, false],
    // Secrets: never enumerable in users' namespaces (other tenants' wallet keys), only by name.
    ["lpo-controller", "list", "secrets", "ALL", false],
    ["lpo-controller", "watch", "secrets", "ALL", false],
    ["lpo-controller", "list", "secrets", "video", false],
    ["lpo-controller", "watch", "secrets", "video", false],
    ["lpo-controller", "get", "secrets", "video", true],
    ["lpo-controller", "create", "secrets", "video", true],
    ["lpo-controller", "patch", "secrets", "video", true],
    ["lpo-controller", "update", "secrets", "video", false],
    // ... except where the webhook API keeps Webhooks and their Secrets.
    ["lpo-controller", "list", "secrets", "SELF", true],
    ["lpo-controller", "watch", "secrets", "SELF", true],
    ["lpo-controller", "delete", "secrets", "SELF", false],
    ["lpo-controller", "watch", "webhooks.livepeer.org", "SELF", true],
    ["lpo-controller", "patch", "webhooks.livepeer.org/status", "SELF", true],
    ["lpo-controller", "watch", "webhooks.livepeer.org", "video", false],
    ["lpo-controller", "list", "webhooks.livepeer.org", "ALL", false],
    ["lpo-api", "create", "webhooks.livepeer.org", "SELF", true],
    ["lpo-api", "create", "webhooks.livepeer.org", "video", false],
    // Delivery reads a webhook's Secret by name (the shared secret) and writes its delivery status.
    ["lpo-api", "get", "secrets", "SELF", true],
    ["lpo-api", "list", "secrets", "SELF", false],
    ["lpo-api", "watch", "secrets", "SELF", false],
    ["lpo-api", "patch", "webhooks.livepeer.org/status", "SELF", true],
    ["lpo-api", "patch", "webhooks.livepeer.org/status", "video", false],
    ["lpo-api", "list", "orchestrators.livepeer.org", "SELF", false],
    ["lpo-api", "watch", "gateways.livepeer.org", "video", true],
    ["lpo-api", "update", "gateways.livepeer.org", "video", false],
    ["lpo-api", "patch", "gateways.livepeer.org/status", "video", false],
    ["lpo-api", "get", "secrets", "video", false],
    // Misspelled on purpose: kubectl answers "no" to these too (with a warning), and a check
    // that took that for a denial would pass every typo in the rows above.
    ["lpo-api", "get", "secretz", "video", "error"],
    ["lpo-controller", "gett", "secrets", "video", "error"],
  ] as const)("%s may %s %s in %s: %s", async (sa, verb, resource, namespace, allowed) => {
    const answer = can(ns.name, sa, verb, resource, namespace === "SELF" ? ns.name : namespace);
    if (allowed === "error") await expect(answer).rejects.toThrow(/no clean answer[\s\S]*stderr: Warning/);
    else expect(await answer).toBe(allowed);
  });

  // The controller applies its own CRDs at start (controller.manageCrds, default true): get,
  // create and patch on exactly the operator's three CRDs; never delete, list, watch or update,
  // and nothing on any other CRD.
  it.each([
    ["get", "orchestrators.livepeer.org", true],
    ["create", "orchestrators.livepeer.org", true],
    ["patch", "orchestrators.livepeer.org", true],
    ["patch", "gateways.livepeer.org", true],
    ["patch", "webhooks.livepeer.org", true],
    ["delete", "orchestrators.livepeer.org", false],
    ["update", "webhooks.livepeer.org", false],
    ["patch", "certificates.cert-manager.io", false],
    ["get", "prometheusrules.monitoring.coreos.com", false],
    ["list", undefined, false],
    ["watch", undefined, false],
    ["create", undefined, false],
    ["deletecollection", undefined, false],
  ] as const)("lpo-controller may %s CRD %s: %s", async (verb, name, allowed) => {
    expect(await canOn(ns.name, "lpo-controller", verb, CRD, name)).toBe(allowed);
  });

  it("as the controller's ServiceAccount, server-side apply of its own CRDs passes and of another CRD is forbidden", async () => {
    const as = `--as=system:serviceaccount:${ns.name}:lpo-controller`;
    const applyAs = (input?: string, files: string[] = []) =>
      kubectl(
        [
          "apply",
          "--server-side",
          "--force-conflicts",
          "--dry-run=server",
          "--field-manager=livepeer-operator-crds",
          as,
          ...(files.length ? files.flatMap((f) => ["-f", f]) : ["-f", "-"]),
        ],
        input,
      );
    const own = path.join(root, "deploy/crds");
    expect(await applyAs(undefined, [own])).toMatch(/orchestrators\.livepeer\.org serverside-applied/);
    const other = readFileSync(path.join(own, "webhooks.livepeer.org.yaml"), "utf8")
      .replace("name: webhooks.livepeer.org", "name: webhooks.example.com")
      .replace("group: livepeer.org", "group: example.com");
    const refused = await applyAs(other).catch((e: Error) => e.message);
    expect(refused).toMatch(/forbidden/i);
    expect(refused).toContain("webhooks.example.com");
  });

  it("names in the CRD rule exactly the CRDs the operator generates, and passes --manage-crds", async () => {
    const r = await helm(["get", "manifest", "lpo", "-n", ns.name]);
    expect(r.code, r.out).toBe(0);
    const role = (
      loadAll(r.out) as {
        kind?: string;
        metadata?: { name?: string };
        rules?: { resourceNames?: string[] }[];
      }[]
    ).find((d) => d?.kind === "ClusterRole" && d.metadata?.name === "lpo-controller-crds");
    expect(role?.rules?.[0]?.resourceNames?.slice().sort()).toEqual(
      CUSTOM_RESOURCES.map((d) => `${d.plural}.livepeer.org`).sort(),
    );
    expect(r.out).toContain("- --manage-crds=true");
  });
});

describe("helm install with controller.watchNamespaces: Roles only", () => {
  let release: Awaited<ReturnType<typeof testNamespace>>;
  let apps: Awaited<ReturnType<typeof testNamespace>>;
  beforeAll(async () => {
    release = await testNamespace("helm-w");
    apps = await testNamespace("helm-apps");
    // Another release name: ClusterRole names are cluster-wide.
    const r = await helm([
      "install",
      "lpo-w",
      chart,
      "-n",
      release.name,
      "--wait=false",
      "--set",
      `controller.watchNamespaces={${apps.name}}`,
      // Shared control plane: see the first install.
      "--set",
      "api.webhookNamespacePolicy=false",
    ]);
    expect(r.code, r.out).toBe(0);
  });
  afterAll(async () => {
    await helm(["uninstall", "lpo-w", "-n", release.name]);
    await release.remove();
    await apps.remove();
  });

  it("passes the listed namespace and the webhook namespace to the controller", async () => {
    const r = await helm(["get", "manifest", "lpo-w", "-n", release.name]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(`- --namespace=${apps.name}`);
    expect(r.out).toContain(`- --webhook-namespace=${release.name}`);
    expect(r.out).not.toMatch(/kind: ClusterRole\nmetadata:\n {2}name: lpo-w-controller\n/);
  });

  it.each([
    // The listed namespace: what the controller needs there, Secrets by name only.
    ["create", "statefulsets.apps", "APPS", true],
    ["watch", "orchestrators.livepeer.org", "APPS", true],
    ["patch", "gateways.livepeer.org/status", "APPS", true],
    ["delete", "pods", "APPS", true],
    ["patch", "pods", "APPS", true],
    ["get", "pods/log", "APPS", true],
    ["create", "events.events.k8s.io", "APPS", true],
    ["get", "secrets", "APPS", true],
    ["create", "secrets", "APPS", true],
    ["list", "secrets", "APPS", false],
    ["watch", "secrets", "APPS", false],
    // Any other namespace: nothing.
    ["create", "statefulsets.apps", "video", false],
    ["watch", "orchestrators.livepeer.org", "video", false],
    ["patch", "orchestrators.livepeer.org/status", "video", false],
    ["list", "pods", "video", false],
    ["get", "pods/log", "video", false],
    ["create", "events.events.k8s.io", "video", false],
    ["get", "secrets", "video", false],
    ["create", "secrets", "video", false],
    ["get", "configmaps", "video", false],
    // Cluster-wide: Nodes read, nothing else.
    ["list", "nodes", undefined, true],
    ["watch", "nodes", undefined, true],
    ["patch", "nodes", undefined, false],
    ["list", "pods", "ALL", false],
    ["list", "orchestrators.livepeer.org", "ALL", false],
    ["list", "secrets", "ALL", false],
    ["get", "secrets", "ALL", false],
    // The release namespace: the webhook API's Webhooks and their Secrets, the Lease.
    ["watch", "webhooks.livepeer.org", "SELF", true],
    ["list", "secrets", "SELF", true],
    ["update", "leases.coordination.k8s.io", "SELF", true],
    ["create", "statefulsets.apps", "SELF", false],
  ] as const)("the controller may %s %s in %s: %s", async (verb, resource, namespace, allowed) => {
    const where = namespace === "SELF" ? release.name : namespace === "APPS" ? apps.name : namespace;
    expect(await can(release.name, "lpo-w-controller", verb, resource, where)).toBe(allowed);
  });
});

function run(file: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

type Manifest = {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: unknown;
  data?: Record<string, string>;
};

async function manifests(extra: string[], namespace = "livepeer-system"): Promise<Manifest[]> {
  const r = await helm(["template", "lpo", chart, "-n", namespace, "--kube-version=1.36.3", ...extra]);
  expect(r.code, r.out).toBe(0);
  return (loadAll(r.out.replace(/^walk\.go.*\n/gm, "")) as (Manifest | null)[]).filter(
    (m): m is Manifest => !!m,
  );
}

describe("alert rules: promtool check and one unit test per alert", () => {
  let promtool: string;
  let dir: string;
  let shipped: string[];
  const runbookUrl = (
    load(readFileSync(path.join(chart, "values.yaml"), "utf8")) as { alerts: { runbookUrl: string } }
  ).alerts.runbookUrl;

  beforeAll(async () => {
    promtool = (await ensureBinaries(["promtool"])).promtool;
    dir = mkdtempSync(path.join(tmpdir(), "lpo-alerts-"));
    const rule = (await manifests(["--set", "alerts.enabled=true"])).find((m) => m.kind === "PrometheusRule");
    expect(rule, "alerts.enabled renders a PrometheusRule").toBeDefined();
    const groups = (rule!.spec as { groups: { rules: { alert: string }[] }[] }).groups;
    shipped = groups.flatMap((g) => g.rules.map((r) => r.alert));
    writeFileSync(path.join(dir, "rules.yaml"), dump({ groups }, { lineWidth: -1 }));
  }, 1_800_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("ships every alert of src/alerts/rules.ts, and promtool check rules accepts them", async () => {
    expect(shipped.sort()).toEqual(ALERT_RULES.map((r) => r.alert).sort());
    const r = await run(promtool, ["check", "rules", path.join(dir, "rules.yaml")]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(`SUCCESS: ${ALERT_RULES.length} rules found`);
  });

  it.each(ALERT_RULES.map((r) => [r.alert, r] as const))(
    "%s fires when it should (labels, annotations) and stays quiet when it should not",
    async (alert, rule) => {
      const file = path.join(dir, `${alert}.test.yaml`);
      writeFileSync(file, promtoolTestFile(rule, { ruleFile: "rules.yaml", runbookUrl }));
      const r = await run(promtool, ["test", "rules", file]);
      expect(r.code, r.out).toBe(0);
    },
  );

  it("alerts.disabled leaves an alert out; without the API, the delivery alerts go too", async () => {
    const rules = async (extra: string[]) => {
      const { groups } = (await manifests(["--set", "alerts.enabled=true", ...extra])).find(
        (m) => m.kind === "PrometheusRule",
      )!.spec as { groups: { name: string; rules: { alert: string }[] | null }[] };
      // A group whose rules are all left out goes too (Prometheus wants rules in every group).
      for (const g of groups) expect(g.rules?.length, g.name).toBeGreaterThan(0);
      return groups.flatMap((g) => (g.rules ?? []).map((r) => r.alert));
    };
    const off = await rules(["--set", "alerts.disabled={LivepeerNotInActiveSet}"]);
    expect(off).not.toContain("LivepeerNotInActiveSet");
    expect(off).toContain("LivepeerRewardNotCalled");
    const noApi = await rules(["--set", "api.enabled=false"]);
    expect(noApi).not.toContain("LivepeerDeliveryBacklog");
    expect(noApi).not.toContain("LivepeerDeliveriesFailing");
    expect(noApi).toContain("LivepeerControllerQueueStuck");
  });

  it("no PrometheusRule unless alerts.enabled", async () => {
    expect((await manifests([])).map((m) => m.kind)).not.toContain("PrometheusRule");
  });
});

describe("Grafana dashboard ConfigMap", () => {
  it("carries the generated dashboard as valid JSON, labelled for Grafana's sidecar", async () => {
    expect((await manifests([])).find((m) => m.metadata.name === "lpo-dashboard")).toBeUndefined();
    const cm = (await manifests(["--set", "dashboard.enabled=true"])).find(
      (m) => m.metadata.name === "lpo-dashboard",
    );
    expect(cm?.kind).toBe("ConfigMap");
    expect(cm!.metadata.labels?.grafana_dashboard).toBe("1");
    expect(JSON.parse(cm!.data!["livepeer-operator.json"]!)).toEqual(dashboard());
  });
});

describe("NetworkPolicies and the dashboard ConfigMap on the API server", () => {
  let ns: Awaited<ReturnType<typeof testNamespace>>;
  beforeAll(async () => {
    ns = await testNamespace("helm-np");
  });
  afterAll(async () => {
    await ns.remove();
  });

  it("are accepted by kubectl apply --dry-run=server, default and full values", async () => {
    for (const values of [[], ["-f", path.join(golden, "full-values.yaml")]]) {
      const docs = (await manifests(["--set", "dashboard.enabled=true", ...values], ns.name)).filter(
        (m) => m.kind === "NetworkPolicy" || m.metadata.name === "lpo-dashboard",
      );
      expect(docs.map((d) => d.kind).sort()).toEqual(["ConfigMap", "NetworkPolicy", "NetworkPolicy"]);
      const out = await kubectl(
        ["apply", "--dry-run=server", "-n", ns.name, "-f", "-"],
        docs.map((d) => dump(d)).join("---\n"),
      );
      expect(out).toContain("networkpolicy.networking.k8s.io/lpo-controller created (server dry run)");
      expect(out).toContain("networkpolicy.networking.k8s.io/lpo-api created (server dry run)");
    }
  });

  it("can be turned off", async () => {
    expect((await manifests(["--set", "networkPolicy.enabled=false"])).map((m) => m.kind)).not.toContain(
      "NetworkPolicy",
    );
  });
});
