import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { load } from "js-yaml";
import { describe, expect, it } from "vitest";
import { DeliveryMetrics } from "../api/metrics/delivery-metrics.ts";
import { SignerAuthMetrics } from "../api/signer-auth/metrics.ts";
import { RuntimeMetrics } from "../controller/runtime/metrics.ts";
import { CATALOG, CATALOG_BY_ID } from "../node/diagnosis/catalog.ts";
import { dashboard } from "./dashboard.ts";
import { runbookAnchor, runbookEntry } from "./entries.ts";
import { alertFiles } from "./generated-files.ts";
import { OPERATOR_ENTRIES } from "./operator-entries.ts";
import { helmExpression } from "./prometheus-rule.ts";
import { promtoolTestFile, renderSummary } from "./promtool-tests.ts";
import { ALERT_RULES } from "./rules.ts";
import { CONDITION_OF, troubleshootingMarkdown } from "./runbook.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Every series name the operator's controller and API export, plus the node's own (the catalog's). */
async function exportedMetricNames(): Promise<Set<string>> {
  const runtime = new RuntimeMetrics({ processMetrics: false });
  const delivery = new DeliveryMetrics(async () => ({ pending: 0 }), { processMetrics: false });
  new SignerAuthMetrics(delivery.registry);
  const names = new Set<string>();
  for (const m of [
    ...(await runtime.registry.getMetricsAsJSON()),
    ...(await delivery.registry.getMetricsAsJSON()),
  ]) {
    names.add(m.name);
    if (String(m.type) === "histogram")
      for (const s of ["_bucket", "_count", "_sum"]) names.add(`${m.name}${s}`);
  }
  for (const e of CATALOG)
    for (const r of e.recognizedBy) if (r.kind === "metric") for (const m of r.metrics) names.add(m);
  return names;
}

/** Metric names a PromQL expression selects (a name followed by `{`). */
const selected = (expr: string) =>
  [...expr.matchAll(/([a-z_:][a-z0-9_:]*)\{/g)]
    .map((m) => m[1]!)
    .filter((n) => !["by", "on", "without", "ignoring"].includes(n));

describe("generated alert files", () => {
  it.each(alertFiles().map((f) => [f.path, f.content]))(
    "%s is what the generator writes (run npm run generate after changing src/alerts or the catalog)",
    (file, content) => {
      expect(readFileSync(path.join(root, file), "utf8")).toBe(content);
    },
  );
});

describe("alert rules", () => {
  it("ship every alert issues 19 and 22 ask for, each on the finding or entry that explains it", () => {
    const byAlert = new Map(ALERT_RULES.map((r) => [r.alert, r.entry]));
    expect(Object.fromEntries(byAlert)).toMatchObject({
      LivepeerNodeDown: "NodeDown",
      LivepeerNodeUnreachable: "NodeUnreachable",
      LivepeerOrchestratorCapped: "OrchestratorCapped",
      LivepeerSessionLimitReached: "OrchestratorCapped",
      LivepeerRewardNotCalled: "RewardNotCalled",
      LivepeerGatewayUnfunded: "GatewayUnfunded",
      LivepeerDepositLow: "DepositLow",
      LivepeerRPCStale: "RPCStale",
      LivepeerWalletLow: "LowWalletBalance",
      LivepeerControllerNoLeader: "ControllerNoLeader",
      LivepeerControllerQueueStuck: "ControllerQueueStuck",
      LivepeerDeliveriesFailing: "DeliveriesFailing",
      LivepeerRewardPending: "RewardPending",
      LivepeerRewardFailed: "RewardFailed",
      LivepeerRewardMissed: "RewardMissed",
      LivepeerTopUpFailed: "TopUpFailed",
      LivepeerTopUpCapped: "TopUpCapped",
      LivepeerOnchainSettingsDrift: "OnchainSettingsDrift",
    });
  });

  it("names are unique and every entry resolves to a meaning and an action", () => {
    expect(new Set(ALERT_RULES.map((r) => r.alert)).size).toBe(ALERT_RULES.length);
    for (const r of ALERT_RULES) {
      const e = runbookEntry(r.entry);
      expect(e.meaning.length, r.alert).toBeGreaterThan(20);
      expect(e.action.length, r.alert).toBeGreaterThan(20);
    }
  });

  it("a finding alert's id filter is a catalog id, and its severity follows the finding's", () => {
    for (const r of ALERT_RULES) {
      const id = /id="([A-Za-z]+)"/.exec(r.expr)?.[1];
      if (!id) continue;
      const entry = CATALOG_BY_ID.get(id);
      expect(entry, `${r.alert} filters on id ${id}`).toBeDefined();
      expect(r.severity, r.alert).toBe(entry!.severity === "error" ? "critical" : "warning");
    }
  });

  it("read only metrics the operator (or the node, for the catalog's) really exports", async () => {
    const names = await exportedMetricNames();
    for (const r of ALERT_RULES)
      for (const n of selected(r.expr)) expect(names, `${r.alert}: ${n}`).toContain(n);
  });

  it("each has a firing case and at least one quiet case", () => {
    for (const r of ALERT_RULES) {
      expect(r.fires.fires, r.alert).toBeDefined();
      expect(r.quiet.length, r.alert).toBeGreaterThan(0);
      for (const q of r.quiet) expect(q.fires, r.alert).toBeUndefined();
    }
  });

  it.each([
    ["a value", "x > <<alerts.funding.minDepositEth>>", "x > {{ .Values.alerts.funding.minDepositEth }}"],
    ["the controller's matchers after a brace", 'm{$CONTROLLER,id="X"}', 'm{ {{- $controller }},id="X"}'],
    ["the API's matchers", "m{$API}", "m{ {{- $api }}}"],
    ["Helm expressions pass through", "{{ max 0 1 }}m", "{{ max 0 1 }}m"],
  ])("helmExpression: %s", (_name, input, output) => {
    expect(helmExpression(input)).toBe(output);
  });
});

describe("promtool cases", () => {
  it.each([
    [
      "labels filled in",
      "{{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }}: x",
      { kind: "Gateway", namespace: "v", name: "g" },
      "Gateway v/g: x",
    ],
    ["a missing label is empty, as in Prometheus", "on {{ $labels.pod }}", {}, "on "],
    ["no template", "plain", { a: "b" }, "plain"],
  ])("renderSummary: %s", (_name, summary, labels, out) => {
    expect(renderSummary(summary, labels)).toBe(out);
  });

  it("a test file expects the firing alert's labels and annotations, and nothing in the quiet cases", () => {
    const rule = ALERT_RULES.find((r) => r.alert === "LivepeerGatewayUnfunded")!;
    const file = load(promtoolTestFile(rule, { ruleFile: "rules.yaml", runbookUrl: "https://x/t.md" })) as {
      rule_files: string[];
      tests: {
        name: string;
        alert_rule_test: {
          alertname: string;
          exp_alerts: { exp_labels: object; exp_annotations: Record<string, string> }[];
        }[];
      }[];
    };
    expect(file.rule_files).toEqual(["rules.yaml"]);
    const [fires, ...quiet] = file.tests;
    expect(fires!.alert_rule_test[0]!.exp_alerts[0]!.exp_labels).toEqual({
      severity: "critical",
      kind: "Gateway",
      namespace: "video",
      name: "gw",
    });
    expect(fires!.alert_rule_test[0]!.exp_alerts[0]!.exp_annotations).toMatchObject({
      runbook_url: "https://x/t.md#gatewayunfunded",
      description: CATALOG_BY_ID.get("GatewayUnfunded")!.meaning,
    });
    expect(quiet.length).toBe(rule.quiet.length);
    for (const q of quiet) expect(q.alert_rule_test[0]!.exp_alerts).toEqual([]);
  });
});

describe("docs/troubleshooting.md", () => {
  const doc = troubleshootingMarkdown(ALERT_RULES);
  const headings = new Set([...doc.matchAll(/^### (\S+)$/gm)].map((m) => runbookAnchor(m[1]!)));

  it("has an entry for every catalog finding and every operator entry", () => {
    for (const e of [...CATALOG, ...OPERATOR_ENTRIES]) expect(headings, e.id).toContain(runbookAnchor(e.id));
  });

  it("every alert's runbook anchor lands on a heading", () => {
    for (const r of ALERT_RULES) expect(headings, r.alert).toContain(runbookAnchor(r.entry));
  });

  it("names the alert that carries a finding, and says when none does", () => {
    const section = (id: string) => doc.slice(doc.indexOf(`### ${id}\n`)).split("\n### ")[0]!;
    expect(section("RewardFailed")).toContain("`LivepeerRewardFailed` (warning)");
    expect(section("TranscodeLoopTimedOut")).toContain("**Alert:** none of its own");
    expect(section("KeystoreNotFound")).toContain("`LivepeerNodeError` (critical), which links here");
    expect(section("GatewayUnfunded")).toContain("`Ready=False` with reason `GatewayUnfunded`");
  });

  it("names the condition a chain or duty finding sets, for catalog ids only", () => {
    for (const id of Object.keys(CONDITION_OF)) expect(CATALOG_BY_ID.has(id), id).toBe(true);
    expect(doc.slice(doc.indexOf("### RPCStale\n")).split("\n### ")[0]).toContain(
      "`ChainHealthy=False` (reason `RPCStale`)",
    );
  });
});

describe("Grafana dashboard", () => {
  const d = dashboard() as {
    uid: string;
    panels: { id: number; type: string; title: string; targets?: { expr: string }[] }[];
  };

  it("is JSON with unique panel ids and a uid", () => {
    expect(JSON.parse(JSON.stringify(d))).toEqual(d);
    expect(d.uid).toBe("livepeer-operator");
    expect(new Set(d.panels.map((p) => p.id)).size).toBe(d.panels.length);
  });

  it("covers reconciles, the queue, sessions against limits, findings, chain facts and deliveries", () => {
    const exprs = d.panels.flatMap((p) => p.targets ?? []).map((t) => t.expr);
    for (const metric of [
      "controller_runtime_reconcile_total",
      "workqueue_depth",
      'fact="maxSessions"',
      "livepeer_current_sessions_total",
      "livepeer_operator_findings",
      'fact=~"deposit|reserve"',
      'fact="balance"',
      "livepeer_webhook_delivery_attempts_total",
    ]) {
      expect(
        exprs.some((e) => e.includes(metric)),
        metric,
      ).toBe(true);
    }
  });

  it("queries only metrics that are exported", async () => {
    const names = await exportedMetricNames();
    for (const p of d.panels)
      for (const t of p.targets ?? [])
        for (const n of selected(t.expr)) expect(names, `${p.title}: ${n}`).toContain(n);
  });
});
