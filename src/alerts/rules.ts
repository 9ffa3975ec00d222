// The alerts the chart ships (templates/prometheusrule.yaml is generated from this list). Each
// one reads a metric the operator really exports: the findings, condition and status-fact gauges
// of the controller, its work queues and leader election, and the API's delivery metrics.
// `max by` folds the replicas: only the leader has resource series, but a stale one may linger.
// The cases assume the chart's defaults and a release named `lpo`.
import { SIGNER_AUTH_ALERTS } from "./signer-auth-rules.ts";
import type { AlertCase, AlertRule } from "./types.ts";

const CTL = 'job="lpo-controller-metrics"';
const API = 'job="lpo-api"';
const at = { kind: "Orchestrator", namespace: "video", name: "o" };
const gwAt = { kind: "Gateway", namespace: "video", name: "gw" };
const signerAt = { kind: "RemoteSigner", namespace: "video", name: "signer" };
const labelText = (l: Record<string, string>) =>
  Object.entries(l)
    .map(([k, v]) => `${k}="${v}"`)
    .join(",");

const findingSeries = (id: string, where: Record<string, string>, severity: string, values: string) => ({
  series: `livepeer_operator_findings{${CTL},${labelText(where)},id="${id}",severity="${severity}"}`,
  values,
});

/** An alert on one finding id: in force for `alerts.findingFor` (or `forMinutes` given here). */
function findingAlert(o: {
  alert: string;
  id: string;
  group: AlertRule["group"];
  severity: AlertRule["severity"];
  findingSeverity: "warning" | "error";
  kind?: "Orchestrator" | "Gateway";
  entry?: string;
  summary: string;
  for?: string;
  /** Minutes after which the alert fires in the test, and before which it does not. */
  firesAt?: number;
  quietAt?: number;
}): AlertRule {
  const where = o.kind === "Gateway" ? gwAt : at;
  const kind = o.kind ? `,kind="${o.kind}"` : "";
  const firesAt = o.firesAt ?? 10;
  const quietAt = o.quietAt ?? 3;
  const values = `1x${firesAt + 10}`;
  return {
    alert: o.alert,
    group: o.group,
    entry: o.entry ?? o.id,
    severity: o.severity,
    expr: `max by (kind, namespace, name) (livepeer_operator_findings{$CONTROLLER${kind},id="${o.id}"}) > 0`,
    for: o.for ?? "<<alerts.findingFor>>",
    summary: `{{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }}: ${o.summary}`,
    fires: {
      series: [findingSeries(o.id, where, o.findingSeverity, values)],
      at: `${firesAt}m`,
      fires: where,
    },
    quiet: [
      // Not yet held long enough (an alert without a hold fires at once: no such case).
      ...(o.for === "0m"
        ? []
        : [{ series: [findingSeries(o.id, where, o.findingSeverity, values)], at: `${quietAt}m` }]),
      { series: [findingSeries("SomethingElse", where, o.findingSeverity, values)], at: `${firesAt}m` },
      ...(o.kind
        ? [
            {
              series: [
                findingSeries(
                  o.id,
                  { ...where, kind: o.kind === "Gateway" ? "Orchestrator" : "Gateway" },
                  o.findingSeverity,
                  values,
                ),
              ],
              at: `${firesAt}m`,
            },
          ]
        : []),
    ],
  };
}

const condition = (type: string, status: string, reason: string, where = at, values = "1x30") => ({
  series: `livepeer_operator_condition{${CTL},${labelText(where)},type="${type}",status="${status}",reason="${reason}"}`,
  values,
});

const fact = (name: string, value: string, where = gwAt) => ({
  series: `livepeer_operator_status_fact{${CTL},${labelText(where)},fact="${name}"}`,
  values: `${value}x30`,
});

const quietCase = (series: AlertCase["series"], minutes: number): AlertCase => ({
  series,
  at: `${minutes}m`,
});

const LIVE_AT = { kind: "Orchestrator", namespace: "video", name: "o" };
const liveFact = (name: string, value: string) => fact(name, value, LIVE_AT);

const OWN_ALERTS: readonly AlertRule[] = [
  // Live AI
  {
    alert: "LivepeerLiveCapacityExhausted",
    group: "nodes",
    entry: "LiveCapacityExhausted",
    severity: "warning",
    expr: [
      'max by (kind, namespace, name) (livepeer_operator_status_fact{$CONTROLLER,kind="Orchestrator",fact="liveSessions"})',
      '>= max by (kind, namespace, name) (livepeer_operator_status_fact{$CONTROLLER,kind="Orchestrator",fact="liveCapacity"} > 0)',
    ].join("\n"),
    for: "<<alerts.findingFor>>",
    summary:
      "{{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }}: every live runner is in session; new live sessions are refused",
    fires: {
      series: [liveFact("liveCapacity", "2"), liveFact("liveSessions", "2")],
      at: "10m",
      fires: LIVE_AT,
    },
    quiet: [
      quietCase([liveFact("liveCapacity", "2"), liveFact("liveSessions", "1")], 10),
      // No healthy runner is LiveAIReady=False's business, not a full house.
      quietCase([liveFact("liveCapacity", "0"), liveFact("liveSessions", "0")], 10),
      quietCase([liveFact("liveCapacity", "2"), liveFact("liveSessions", "2")], 3),
    ],
  },
  // Nodes
  {
    alert: "LivepeerNodeDown",
    group: "nodes",
    entry: "NodeDown",
    severity: "critical",
    // A RemoteSigner down is LivepeerRemoteSignerDown's (every reason: it pays for others).
    expr: 'max by (kind, namespace, name, reason) (livepeer_operator_condition{$CONTROLLER,kind!="RemoteSigner",type="Ready",status="False",reason=~"PodsNotReady|PodPending"}) > 0',
    for: "<<alerts.nodeDownFor>>",
    summary:
      "{{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }}: node pod not Ready ({{ $labels.reason }})",
    fires: {
      series: [condition("Ready", "False", "PodsNotReady")],
      at: "15m",
      fires: { ...at, reason: "PodsNotReady" },
    },
    quiet: [
      quietCase([condition("Ready", "False", "PodsNotReady")], 5),
      quietCase([condition("Ready", "True", "Serving")], 15),
      // Ready=False for a finding is that finding's own alert, not this one.
      quietCase([condition("Ready", "False", "GatewayUnfunded", gwAt)], 15),
      quietCase([condition("Ready", "False", "PodsNotReady", signerAt)], 15),
    ],
  },
  {
    alert: "LivepeerRemoteSignerDown",
    group: "nodes",
    entry: "RemoteSignerDown",
    severity: "critical",
    expr: 'max by (kind, namespace, name, reason) (livepeer_operator_condition{$CONTROLLER,kind="RemoteSigner",type="Ready",status="False"}) > 0',
    for: "<<alerts.nodeDownFor>>",
    summary:
      "RemoteSigner {{ $labels.namespace }}/{{ $labels.name }} not Ready ({{ $labels.reason }}): its keyless Gateways and apps cannot pay",
    fires: {
      series: [condition("Ready", "False", "PodsNotReady", signerAt)],
      at: "15m",
      fires: { ...signerAt, reason: "PodsNotReady" },
    },
    quiet: [
      quietCase([condition("Ready", "False", "PodsNotReady", signerAt)], 5),
      quietCase([condition("Ready", "True", "Serving", signerAt)], 15),
      quietCase([condition("Ready", "False", "PodsNotReady", gwAt)], 15),
    ],
  },
  {
    alert: "LivepeerNodeUnreachable",
    group: "nodes",
    entry: "NodeUnreachable",
    severity: "critical",
    expr: 'max by (kind, namespace, name, reason) (livepeer_operator_condition{$CONTROLLER,type="NodeReachable",status="False"}) > 0',
    for: "<<alerts.nodeUnreachableFor>>",
    summary:
      "{{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }}: the node's endpoints do not answer ({{ $labels.reason }})",
    fires: {
      series: [condition("NodeReachable", "False", "EndpointUnreachable")],
      at: "10m",
      fires: { ...at, reason: "EndpointUnreachable" },
    },
    quiet: [
      quietCase([condition("NodeReachable", "False", "EndpointUnreachable")], 3),
      quietCase([condition("NodeReachable", "True", "EndpointsAnswering")], 10),
      quietCase([condition("NodeReachable", "Unknown", "NoReadyPod")], 10),
    ],
  },
  findingAlert({
    alert: "LivepeerSessionLimitReached",
    id: "OrchestratorCapped",
    kind: "Orchestrator",
    group: "nodes",
    severity: "warning",
    findingSeverity: "warning",
    summary: "running at its session limit (current sessions >= -maxSessions), new streams go elsewhere",
    for: "<<alerts.sessionsFor>>",
    firesAt: 20,
    quietAt: 10,
  }),
  findingAlert({
    alert: "LivepeerOrchestratorCapped",
    id: "OrchestratorCapped",
    kind: "Gateway",
    group: "nodes",
    severity: "warning",
    findingSeverity: "warning",
    summary: "its orchestrators answer OrchestratorCapped: not enough transcoding capacity",
    for: "<<alerts.sessionsFor>>",
    firesAt: 20,
    quietAt: 10,
  }),
  // Chain
  findingAlert({
    alert: "LivepeerRewardNotCalled",
    id: "RewardNotCalled",
    group: "chain",
    severity: "warning",
    findingSeverity: "warning",
    kind: "Orchestrator",
    summary: "reward not called in this round, with less than the alert's time left (alerts.reward)",
    // The finding appears once 5 % of the round has passed; held until only timeLeftMinutes remain.
    for: "{{ max 0 (sub (sub .Values.alerts.reward.roundMinutes (div .Values.alerts.reward.roundMinutes 20)) .Values.alerts.reward.timeLeftMinutes) }}m",
    firesAt: 1020,
    quietAt: 1000,
  }),
  findingAlert({
    alert: "LivepeerGatewayUnfunded",
    id: "GatewayUnfunded",
    group: "chain",
    severity: "critical",
    findingSeverity: "error",
    kind: "Gateway",
    summary: "deposit or reserve is 0: it pays no orchestrator and streams are not transcoded",
  }),
  {
    alert: "LivepeerRemoteSignerUnfunded",
    group: "chain",
    entry: "RemoteSignerUnfunded",
    severity: "critical",
    expr: 'max by (kind, namespace, name, reason) (livepeer_operator_condition{$CONTROLLER,kind="RemoteSigner",type="Funded",status="False"}) > 0',
    for: "<<alerts.findingFor>>",
    summary:
      "RemoteSigner {{ $labels.namespace }}/{{ $labels.name }} not Funded ({{ $labels.reason }}): no keyless Gateway or app it signs for can pay",
    fires: {
      series: [condition("Funded", "False", "GatewayUnfunded", signerAt)],
      at: "10m",
      fires: { ...signerAt, reason: "GatewayUnfunded" },
    },
    quiet: [
      quietCase([condition("Funded", "False", "GatewayUnfunded", signerAt)], 3),
      quietCase([condition("Funded", "True", "Funded", signerAt)], 10),
      // A keyless Gateway reads its signer's Funded through: the signer's alert, not one per Gateway.
      quietCase([condition("Funded", "False", "SignerNotFunded", gwAt)], 10),
    ],
  },
  {
    alert: "LivepeerDepositLow",
    group: "chain",
    entry: "DepositLow",
    severity: "warning",
    expr: [
      '(max by (kind, namespace, name, fact) (livepeer_operator_status_fact{$CONTROLLER,kind="Gateway",fact="deposit"}) < <<alerts.funding.minDepositEth>>) > 0',
      'or (max by (kind, namespace, name, fact) (livepeer_operator_status_fact{$CONTROLLER,kind="Gateway",fact="reserve"}) < <<alerts.funding.minReserveEth>>) > 0',
    ].join("\n"),
    for: "<<alerts.findingFor>>",
    summary:
      "{{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }}: {{ $labels.fact }} below the alert threshold (alerts.funding)",
    fires: {
      series: [fact("deposit", "0.5"), fact("reserve", "0.01")],
      at: "10m",
      fires: { ...gwAt, fact: "reserve" },
    },
    quiet: [
      quietCase([fact("deposit", "0.5"), fact("reserve", "0.5")], 10),
      // 0 is LivepeerGatewayUnfunded's (critical), not this warning.
      quietCase([fact("deposit", "0.5"), fact("reserve", "0")], 10),
      quietCase([fact("deposit", "0.01"), fact("reserve", "0.5")], 3),
    ],
  },
  findingAlert({
    alert: "LivepeerRPCStale",
    id: "RPCStale",
    group: "chain",
    severity: "warning",
    findingSeverity: "warning",
    summary: "its chain RPC's head block stopped advancing: tickets expire, rounds seem not to pass",
  }),
  findingAlert({
    alert: "LivepeerRPCUnreachable",
    id: "EthereumUnreachable",
    group: "chain",
    severity: "critical",
    findingSeverity: "error",
    summary: "its chain RPC cannot be reached: no payments, no reward calls",
  }),
  findingAlert({
    alert: "LivepeerWalletLow",
    id: "LowWalletBalance",
    group: "chain",
    severity: "warning",
    findingSeverity: "warning",
    summary: "the node's wallet is below the gas threshold: reward calls, redemptions and top-ups will fail",
  }),
  findingAlert({
    alert: "LivepeerNotInActiveSet",
    id: "NotInActiveSet",
    group: "chain",
    severity: "warning",
    findingSeverity: "warning",
    kind: "Orchestrator",
    summary: "outside the active set: no work from on-chain gateways, no rewards",
  }),
  // Duties (issue 22): the operator calls reward and tops up deposits, and says when it could not.
  findingAlert({
    alert: "LivepeerRewardPending",
    id: "RewardPending",
    group: "duties",
    severity: "warning",
    findingSeverity: "warning",
    kind: "Orchestrator",
    summary: "reward still not called past the reward deadline; the operator is retrying",
  }),
  findingAlert({
    alert: "LivepeerRewardFailed",
    id: "RewardFailed",
    group: "duties",
    severity: "warning",
    findingSeverity: "warning",
    kind: "Orchestrator",
    summary: "the reward call failed (status.reward.lastError says why)",
  }),
  findingAlert({
    alert: "LivepeerRewardMissed",
    id: "RewardMissed",
    group: "duties",
    severity: "warning",
    findingSeverity: "warning",
    kind: "Orchestrator",
    summary: "a round ended without a reward call: its inflation is lost",
    // Final: the round is over, nothing to wait for.
    for: "0m",
    firesAt: 1,
  }),
  findingAlert({
    alert: "LivepeerTopUpFailed",
    id: "TopUpFailed",
    group: "duties",
    severity: "warning",
    findingSeverity: "warning",
    kind: "Gateway",
    summary: "the deposit/reserve top-up failed",
  }),
  findingAlert({
    alert: "LivepeerTopUpCapped",
    id: "TopUpCapped",
    group: "duties",
    severity: "warning",
    findingSeverity: "warning",
    kind: "Gateway",
    summary: "below its funding minimum, and a top-up would exceed the daily cap",
  }),
  findingAlert({
    alert: "LivepeerOnchainSettingsDrift",
    id: "OnchainSettingsDrift",
    group: "duties",
    severity: "warning",
    findingSeverity: "warning",
    kind: "Orchestrator",
    summary: "on-chain reward cut, fee share or service URI differ from the spec",
  }),
  // Controller
  {
    alert: "LivepeerControllerNoLeader",
    group: "controller",
    entry: "ControllerNoLeader",
    severity: "critical",
    when: ".Values.controller.leaderElection",
    expr: "max(leader_election_master_status{$CONTROLLER}) < 1 or absent(leader_election_master_status{$CONTROLLER})",
    for: "<<alerts.controller.noLeaderFor>>",
    summary: "no livepeer-operator controller replica holds the leader lease: nothing reconciles",
    fires: {
      series: [
        {
          series: `leader_election_master_status{${CTL},name="livepeer-operator-leader",pod="a"}`,
          values: "0x30",
        },
        {
          series: `leader_election_master_status{${CTL},name="livepeer-operator-leader",pod="b"}`,
          values: "0x30",
        },
      ],
      at: "10m",
      fires: {},
    },
    quiet: [
      quietCase(
        [
          {
            series: `leader_election_master_status{${CTL},name="livepeer-operator-leader",pod="a"}`,
            values: "1x30",
          },
          {
            series: `leader_election_master_status{${CTL},name="livepeer-operator-leader",pod="b"}`,
            values: "0x30",
          },
        ],
        10,
      ),
      quietCase(
        [
          {
            series: `leader_election_master_status{${CTL},name="livepeer-operator-leader",pod="a"}`,
            values: "0x30",
          },
        ],
        3,
      ),
    ],
  },
  {
    alert: "LivepeerControllerQueueStuck",
    group: "controller",
    entry: "ControllerQueueStuck",
    severity: "critical",
    expr: "max by (name) (workqueue_depth{$CONTROLLER}) > 0\nand on (name) sum by (name) (increase(workqueue_work_duration_seconds_count{$CONTROLLER}[10m])) == 0",
    for: "<<alerts.controller.queueStuckFor>>",
    summary: "the {{ $labels.name }} controller's queue holds work but nothing was worked on for 10 minutes",
    fires: {
      series: [
        { series: `workqueue_depth{${CTL},name="orchestrator"}`, values: "3x40" },
        { series: `workqueue_work_duration_seconds_count{${CTL},name="orchestrator"}`, values: "100x40" },
      ],
      at: "30m",
      fires: { name: "orchestrator" },
    },
    quiet: [
      // Busy but moving: items finish while others wait.
      quietCase(
        [
          { series: `workqueue_depth{${CTL},name="orchestrator"}`, values: "3x40" },
          { series: `workqueue_work_duration_seconds_count{${CTL},name="orchestrator"}`, values: "100+5x40" },
        ],
        30,
      ),
      // Idle: nothing to do, nothing done.
      quietCase(
        [
          { series: `workqueue_depth{${CTL},name="orchestrator"}`, values: "0x40" },
          { series: `workqueue_work_duration_seconds_count{${CTL},name="orchestrator"}`, values: "100x40" },
        ],
        30,
      ),
    ],
  },
  {
    alert: "LivepeerReconcileErrors",
    group: "controller",
    entry: "ReconcileErrors",
    severity: "warning",
    expr: [
      "sum by (controller) (rate(controller_runtime_reconcile_errors_total{$CONTROLLER}[15m]))",
      "/ sum by (controller) (rate(controller_runtime_reconcile_total{$CONTROLLER}[15m])) > <<alerts.controller.errorRatio>>",
    ].join("\n"),
    for: "15m",
    summary: "{{ $labels.controller }}: more than alerts.controller.errorRatio of reconciles fail",
    fires: {
      series: [
        {
          series: `controller_runtime_reconcile_errors_total{${CTL},controller="gateway"}`,
          values: "0+9x60",
        },
        {
          series: `controller_runtime_reconcile_total{${CTL},controller="gateway",result="error"}`,
          values: "0+9x60",
        },
        {
          series: `controller_runtime_reconcile_total{${CTL},controller="gateway",result="success"}`,
          values: "0+1x60",
        },
      ],
      at: "40m",
      fires: { controller: "gateway" },
    },
    quiet: [
      quietCase(
        [
          {
            series: `controller_runtime_reconcile_errors_total{${CTL},controller="gateway"}`,
            values: "0+1x60",
          },
          {
            series: `controller_runtime_reconcile_total{${CTL},controller="gateway",result="error"}`,
            values: "0+1x60",
          },
          {
            series: `controller_runtime_reconcile_total{${CTL},controller="gateway",result="success"}`,
            values: "0+9x60",
          },
        ],
        40,
      ),
    ],
  },
  // Delivery (the API's /metrics)
  {
    alert: "LivepeerDeliveriesFailing",
    group: "delivery",
    entry: "DeliveriesFailing",
    severity: "warning",
    when: ".Values.api.enabled",
    expr: [
      'sum(rate(livepeer_webhook_delivery_attempts_total{$API,result=~"retry|failed|gone"}[15m]))',
      '/ sum(rate(livepeer_webhook_delivery_attempts_total{$API,result=~"delivered|retry|failed|gone"}[15m])) > <<alerts.delivery.failureRatio>>',
    ].join("\n"),
    for: "15m",
    summary: "more than alerts.delivery.failureRatio of webhook delivery attempts fail",
    fires: {
      series: [
        {
          series: `livepeer_webhook_delivery_attempts_total{${API},pod="a",result="retry"}`,
          values: "0+8x60",
        },
        {
          series: `livepeer_webhook_delivery_attempts_total{${API},pod="a",result="delivered"}`,
          values: "0+2x60",
        },
      ],
      at: "40m",
      fires: {},
    },
    quiet: [
      quietCase(
        [
          {
            series: `livepeer_webhook_delivery_attempts_total{${API},pod="a",result="retry"}`,
            values: "0+1x60",
          },
          {
            series: `livepeer_webhook_delivery_attempts_total{${API},pod="a",result="delivered"}`,
            values: "0+9x60",
          },
          // Released/dropped attempts were never sent: not failures.
          {
            series: `livepeer_webhook_delivery_attempts_total{${API},pod="a",result="dropped"}`,
            values: "0+50x60",
          },
        ],
        40,
      ),
    ],
  },
  {
    alert: "LivepeerDeliveryBacklog",
    group: "delivery",
    entry: "DeliveryBacklog",
    severity: "warning",
    when: ".Values.api.enabled",
    expr: "max(livepeer_webhook_delivery_oldest_pending_age_seconds{$API}) > <<alerts.delivery.maxPendingAgeSeconds>>",
    for: "5m",
    summary: "the oldest undelivered webhook event is older than alerts.delivery.maxPendingAgeSeconds",
    fires: {
      series: [
        {
          series: `livepeer_webhook_delivery_oldest_pending_age_seconds{${API},pod="a"}`,
          values: "4000+60x30",
        },
      ],
      at: "10m",
      fires: {},
    },
    quiet: [
      quietCase(
        [{ series: `livepeer_webhook_delivery_oldest_pending_age_seconds{${API},pod="a"}`, values: "30x30" }],
        10,
      ),
    ],
  },
];

/** Error findings with an alert of their own above; every other one is LivepeerNodeError's. */
const ownIds = [
  ...new Set(OWN_ALERTS.flatMap((r) => [...(/id="([A-Za-z]+)"/.exec(r.expr)?.slice(1) ?? [])])),
];

const nodeError: AlertRule = {
  alert: "LivepeerNodeError",
  group: "nodes",
  entry: "NodeError",
  anchorLabel: "id",
  severity: "critical",
  expr: `max by (kind, namespace, name, id) (livepeer_operator_findings{$CONTROLLER,severity="error",id!~"${ownIds.join("|")}"}) > 0`,
  for: "<<alerts.findingFor>>",
  summary:
    "{{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.name }}: {{ $labels.id }} stops the node serving",
  fires: {
    series: [findingSeries("KeystoreNotFound", at, "error", "1x20")],
    at: "10m",
    fires: { ...at, id: "KeystoreNotFound" },
  },
  quiet: [
    quietCase([findingSeries("KeystoreNotFound", at, "error", "1x20")], 3),
    // A warning does not stop service.
    quietCase([findingSeries("TicketParamsExpired", at, "warning", "1x20")], 10),
    // An error with its own alert is not paged twice.
    quietCase([findingSeries("GatewayUnfunded", gwAt, "error", "1x20")], 10),
  ],
};

export const ALERT_RULES: readonly AlertRule[] = [...OWN_ALERTS, ...SIGNER_AUTH_ALERTS, nodeError];
