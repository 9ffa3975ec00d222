// The Grafana dashboard the chart ships as a ConfigMap (dashboard.enabled), built (pure) from the
// metrics the operator exports: reconciles and queues, sessions against limits, findings and
// conditions, chain facts, webhook deliveries. Grafana's sidecar loads ConfigMaps labelled
// grafana_dashboard=1.

export const DASHBOARD_PATH = "deploy/helm/livepeer-operator/dashboards/livepeer-operator.json";
export const DASHBOARD_UID = "livepeer-operator";

// Grafana dashboard variables: the controller's and the API's scrape jobs.
const CTL = 'job=~"$controller"';
const API = 'job=~"$api"';
// Grafana's own variable syntax, not a JavaScript template.
const DATASOURCE = { type: "prometheus", uid: "$" + "{datasource}" } as const;

interface PanelSpec {
  title: string;
  type: "timeseries" | "table" | "stat";
  description: string;
  targets: [expr: string, legend?: string][];
  fieldConfig?: object;
  /** Grid width (of 24) and height; default half a row, 8 high. */
  w?: number;
  h?: number;
}

const rows: { title: string; panels: PanelSpec[] }[] = [
  {
    title: "Controller",
    panels: [
      {
        title: "Reconciles per second",
        type: "timeseries",
        description: "controller_runtime_reconcile_total by controller and result (error, requeue, success).",
        targets: [
          [
            `sum by (controller, result) (rate(controller_runtime_reconcile_total{${CTL}}[5m]))`,
            "{{controller}} {{result}}",
          ],
        ],
      },
      {
        title: "Reconcile time (p95)",
        type: "timeseries",
        description: "95th percentile of controller_runtime_reconcile_time_seconds by controller.",
        fieldConfig: { defaults: { unit: "s" } },
        targets: [
          [
            `histogram_quantile(0.95, sum by (controller, le) (rate(controller_runtime_reconcile_time_seconds_bucket{${CTL}}[5m])))`,
            "{{controller}}",
          ],
        ],
      },
      {
        title: "Queue depth and wait",
        type: "timeseries",
        description:
          "Items waiting in each controller's work queue (workqueue_depth, max over replicas), and how long they waited (p95).",
        targets: [
          [`max by (name) (workqueue_depth{${CTL}})`, "{{name}} depth"],
          [
            `histogram_quantile(0.95, sum by (name, le) (rate(workqueue_queue_duration_seconds_bucket{${CTL}}[5m])))`,
            "{{name}} wait p95 (s)",
          ],
        ],
      },
      {
        title: "Leader",
        type: "stat",
        description:
          "Replicas holding the leader lease (leader_election_master_status): 1 is healthy, 0 means nothing reconciles.",
        targets: [[`sum(leader_election_master_status{${CTL}})`, "leaders"]],
        w: 6,
      },
    ],
  },
  {
    title: "Nodes",
    panels: [
      {
        title: "Session limit per orchestrator",
        type: "timeseries",
        description:
          "The session limit each Orchestrator runs with (status.maxSessions), and where the nodes' own /metrics are scraped, their current and maximum sessions (livepeer_current_sessions_total, livepeer_max_sessions_total).",
        targets: [
          [
            `max by (namespace, name) (livepeer_operator_status_fact{${CTL},kind="Orchestrator",fact="maxSessions"})`,
            "{{namespace}}/{{name}} limit",
          ],
          ["sum by (namespace, pod) (livepeer_current_sessions_total)", "{{namespace}}/{{pod}} current"],
          ["sum by (namespace, pod) (livepeer_max_sessions_total)", "{{namespace}}/{{pod}} max"],
        ],
        w: 24,
      },
      {
        title: "Not Ready",
        type: "table",
        description: "Orchestrators and Gateways whose Ready condition is not True, with the reason.",
        targets: [
          [
            `max by (kind, namespace, name, status, reason) (livepeer_operator_condition{${CTL},type="Ready",status!="True"})`,
          ],
        ],
      },
      {
        title: "Findings in force",
        type: "table",
        description:
          "livepeer_operator_findings: every finding on every resource, by catalog id and severity (docs/troubleshooting.md explains each id).",
        targets: [[`max by (kind, namespace, name, id, severity) (livepeer_operator_findings{${CTL}})`]],
      },
      {
        title: "Findings by severity",
        type: "timeseries",
        description: "How many findings are in force, by severity.",
        targets: [
          [
            `count by (severity) (max by (kind, namespace, name, id, severity) (livepeer_operator_findings{${CTL}}))`,
            "{{severity}}",
          ],
        ],
        w: 24,
      },
    ],
  },
  {
    title: "Chain",
    panels: [
      {
        title: "Gateway deposit and reserve (ETH)",
        type: "timeseries",
        description:
          "TicketBroker deposit and reserve of each on-chain Gateway (status.deposit, status.reserve).",
        targets: [
          [
            `max by (namespace, name, fact) (livepeer_operator_status_fact{${CTL},kind="Gateway",fact=~"deposit|reserve"})`,
            "{{namespace}}/{{name}} {{fact}}",
          ],
        ],
      },
      {
        title: "Wallet balance (ETH)",
        type: "timeseries",
        description:
          "Each on-chain node's wallet, which pays gas (status.balance); under 0.02 ETH transactions start failing.",
        targets: [
          [
            `max by (kind, namespace, name) (livepeer_operator_status_fact{${CTL},fact="balance"})`,
            "{{kind}} {{namespace}}/{{name}}",
          ],
        ],
      },
      {
        title: "Active set and last reward round",
        type: "table",
        description:
          "Per on-chain Orchestrator: in the active set (1/0) and the last round it called reward in.",
        targets: [
          [
            `max by (namespace, name, fact) (livepeer_operator_status_fact{${CTL},kind="Orchestrator",fact=~"activeSet|lastRewardRound"})`,
          ],
        ],
      },
      {
        title: "Chain conditions not True",
        type: "table",
        description:
          "ChainHealthy, Registered and Funded conditions that are False or Unknown, with their reasons.",
        targets: [
          [
            `max by (kind, namespace, name, type, status, reason) (livepeer_operator_condition{${CTL},type=~"ChainHealthy|Registered|Funded",status!="True"})`,
          ],
        ],
      },
    ],
  },
  {
    title: "Webhook deliveries",
    panels: [
      {
        title: "Delivery attempts per second",
        type: "timeseries",
        description:
          "livepeer_webhook_delivery_attempts_total by result (delivered, retry, failed, gone; released, dropped were not sent).",
        targets: [
          [`sum by (result) (rate(livepeer_webhook_delivery_attempts_total{${API}}[5m]))`, "{{result}}"],
        ],
      },
      {
        title: "Delivery queue",
        type: "timeseries",
        description: "Unsettled deliveries and the age of the oldest (seconds).",
        targets: [
          [`max(livepeer_webhook_delivery_queue_depth{${API}})`, "pending"],
          [`max(livepeer_webhook_delivery_oldest_pending_age_seconds{${API}})`, "oldest pending (s)"],
        ],
      },
      {
        title: "Attempt latency (p95)",
        type: "timeseries",
        description: "95th percentile of how long a sent attempt took, by result.",
        fieldConfig: { defaults: { unit: "s" } },
        targets: [
          [
            `histogram_quantile(0.95, sum by (result, le) (rate(livepeer_webhook_delivery_attempt_duration_seconds_bucket{${API}}[5m])))`,
            "{{result}}",
          ],
        ],
        w: 24,
      },
    ],
  },
];

export function dashboard(): object {
  const panels: object[] = [];
  let id = 1;
  let y = 0;
  for (const row of rows) {
    panels.push({
      id: id++,
      type: "row",
      title: row.title,
      collapsed: false,
      gridPos: { x: 0, y, w: 24, h: 1 },
      panels: [],
    });
    y += 1;
    let x = 0;
    for (const spec of row.panels) {
      const w = spec.w ?? 12;
      const h = spec.h ?? 8;
      if (x + w > 24) {
        x = 0;
        y += h;
      }
      const { targets, w: _w, h: _h, ...rest } = spec;
      const table = spec.type === "table";
      panels.push({
        ...rest,
        id: id++,
        gridPos: { x, y, w, h },
        datasource: DATASOURCE,
        targets: targets.map(([expr, legend], i) => ({
          refId: String.fromCharCode(65 + i),
          expr,
          ...(legend ? { legendFormat: legend } : {}),
          ...(table ? { instant: true, format: "table" } : {}),
        })),
      });
      x += w;
    }
    y += 8;
  }
  const jobVariable = (name: string, label: string, metric: string) => ({
    name,
    label,
    type: "query",
    datasource: DATASOURCE,
    query: { query: `label_values(${metric}, job)`, refId: name },
    definition: `label_values(${metric}, job)`,
    includeAll: true,
    multi: true,
    refresh: 2,
  });
  return {
    uid: DASHBOARD_UID,
    title: "Livepeer operator",
    description:
      "Generated by npm run generate from src/alerts/dashboard.ts: reconciles, queues, sessions against limits, findings, chain facts and webhook deliveries.",
    tags: ["livepeer", "livepeer-operator"],
    schemaVersion: 39,
    version: 1,
    editable: true,
    time: { from: "now-6h", to: "now" },
    refresh: "1m",
    templating: {
      list: [
        { name: "datasource", label: "Data source", type: "datasource", query: "prometheus" },
        jobVariable("controller", "Controller job", "controller_runtime_reconcile_total"),
        jobVariable("api", "API job", "livepeer_webhook_delivery_attempts_total"),
      ],
    },
    panels,
  };
}

export function dashboardJson(): string {
  return `${JSON.stringify(dashboard(), null, 2)}\n`;
}
