// promtool's unit-test file for one alert (pure): its firing case with the exact labels and
// annotations expected, and each quiet case expecting nothing. The chart's test renders the rules
// with `helm template` and runs `promtool test rules` on this.
import { dump } from "js-yaml";
import { runbookAnchor, runbookEntry } from "./entries.ts";
import type { AlertCase, AlertRule } from "./types.ts";

/** Prometheus' `{{ $labels.x }}` filled in, as the rule's summary renders for these labels. */
export function renderSummary(summary: string, labels: Readonly<Record<string, string>>): string {
  return summary.replace(/\{\{ \$labels\.([a-zA-Z_]+) \}\}/g, (_m, name: string) => labels[name] ?? "");
}

function testGroup(rule: AlertRule, name: string, c: AlertCase, runbookUrl: string): object {
  const entry = runbookEntry(rule.entry);
  const expected =
    c.fires === undefined
      ? []
      : [
          {
            exp_labels: { severity: rule.severity, ...c.fires },
            exp_annotations: {
              summary: renderSummary(rule.summary, c.fires),
              description: entry.meaning,
              action: entry.action,
              runbook_url: `${runbookUrl}#${
                rule.anchorLabel ? (c.fires[rule.anchorLabel] ?? "").toLowerCase() : runbookAnchor(entry.id)
              }`,
            },
          },
        ];
  return {
    name,
    interval: "1m",
    input_series: c.series.map((s) => ({ series: s.series, values: s.values })),
    alert_rule_test: [{ eval_time: c.at, alertname: rule.alert, exp_alerts: expected }],
  };
}

export function promtoolTestFile(rule: AlertRule, o: { ruleFile: string; runbookUrl: string }): string {
  const tests = [
    testGroup(rule, `${rule.alert} fires`, rule.fires, o.runbookUrl),
    ...rule.quiet.map((c, i) =>
      testGroup(rule, `${rule.alert} stays quiet (case ${i + 1})`, c, o.runbookUrl),
    ),
  ];
  return dump({ rule_files: [o.ruleFile], evaluation_interval: "1m", tests }, { lineWidth: -1 });
}
