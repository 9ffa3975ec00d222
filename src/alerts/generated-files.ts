// The files generated from the alert rules and the diagnosis catalog (pure); src/generate/main.ts
// writes or checks them with the CRDs.
import type { GeneratedFile } from "../schema/crd-files.ts";
import { DASHBOARD_PATH, dashboardJson } from "./dashboard.ts";
import { PROMETHEUS_RULE_TEMPLATE, prometheusRuleTemplate } from "./prometheus-rule.ts";
import { ALERT_RULES } from "./rules.ts";
import { RUNBOOK_PATH, troubleshootingMarkdown } from "./runbook.ts";

export function alertFiles(): GeneratedFile[] {
  return [
    { path: PROMETHEUS_RULE_TEMPLATE, content: prometheusRuleTemplate(ALERT_RULES) },
    { path: RUNBOOK_PATH, content: troubleshootingMarkdown(ALERT_RULES) },
    { path: DASHBOARD_PATH, content: dashboardJson() },
  ];
}
