// Runbook entries for what goes wrong around the nodes rather than in them (a pod down, the
// controller stuck, deliveries failing): the node diagnoses live in the diagnosis catalog.
import type { OperatorEntry } from "./types.ts";

export const OPERATOR_ENTRIES: readonly OperatorEntry[] = [
  {
    id: "LiveCapacityExhausted",
    title: "Every live runner of an Orchestrator is in session",
    meaning:
      "All the live runners the node offers serve a session (status.ai.live: inSession = healthy): a new live-video-to-video session is refused with 503 and the gateway or SDK moves on to another orchestrator, or fails.",
    action:
      "Add runners: raise the app's replicas in spec.ai.live (or onePerGpu with more GPU nodes), or add another Orchestrator with the app; status.ai.live[].reason says which runners are not healthy and why.",
  },
  {
    id: "NodeDown",
    title: "A node's pods are not Ready",
    meaning:
      "The Orchestrator's or Gateway's node pod is missing, pending or not Ready (Ready=False with reason PodsNotReady or PodPending): the node serves nothing, and gateways route around it.",
    action:
      "kubectl describe the resource and its pod: Ready's message names the pod and why (crash loop, image pull, unschedulable); kubectl logs <pod> and `livepeer-operator diagnose` explain a crashing node.",
  },
  {
    id: "NodeUnreachable",
    title: "A Ready node pod does not answer its endpoints",
    meaning:
      "The pod is Ready but the controller cannot read the node's /status (NodeReachable=False): the process hangs, listens elsewhere, or a network policy blocks the controller.",
    action:
      "Read NodeReachable's message (endpoint, URL, error and the next step); check the node's -cliAddr/-httpAddr and that NetworkPolicies let the controller reach the node's ports.",
  },
  {
    id: "NodeError",
    title: "An error finding without an alert of its own",
    meaning:
      "A node has an error-severity finding (a missing keystore, a port in use, no GPU libraries, a price cap no orchestrator meets, ...): it stops service, so Ready is False with the finding's id as the reason. The alert's runbook link goes to that finding's own entry.",
    action:
      "Follow the linked entry's action; kubectl describe the resource for the finding's message (with its numbers), and kubectl logs <pod> | livepeer-operator diagnose - for a node's log.",
  },
  {
    id: "RemoteSignerDown",
    title: "A remote signer is not Ready",
    meaning:
      "A RemoteSigner's Ready is False (pods not Ready, its keystore unusable, the auth hook unavailable, flags refused, ...): the keyless Gateways that name it hold their rollout and cannot pay orchestrators, and SDK apps paying through it are refused.",
    action:
      "kubectl describe remotesigner <name>: Ready's reason and message say what and the next step; kubectl get pods -l app.kubernetes.io/instance=<name> and kubectl logs for a crashing signer; `kubectl get gw` shows which Gateways wait (RemoteSignerReady=False).",
  },
  {
    id: "RemoteSignerUnfunded",
    title: "A remote signer cannot pay",
    meaning:
      "A RemoteSigner's Funded is False: its account's TicketBroker deposit or reserve is 0 (or the funding guard is capped): every keyless Gateway and app it signs for pays no orchestrator, so their streams are not processed.",
    action:
      "Top the signer's account up (kubectl get remotesigner <name> shows its address, deposit and reserve), or let the operator do it: set the RemoteSigner's spec.funding minimums, top-up amounts and daily cap; status.funding says what the guard did.",
  },
  {
    id: "DepositLow",
    title: "A gateway's deposit or reserve is low",
    meaning:
      "The gateway's TicketBroker deposit or reserve is below the chart's alert threshold (alerts.funding): it still pays, but will stop without an error once either reaches 0.",
    action:
      "Top it up (livepeer-operator deposit, livepeer_cli option 11), or let the operator do it: set the Gateway's spec.funding minimums and top-up amounts.",
  },
  {
    id: "ControllerNoLeader",
    title: "No controller replica holds the leader lease",
    meaning:
      "No replica reports leader_election_master_status 1 (or none is scraped): nothing reconciles Orchestrators, Gateways or Webhooks, so status and children go stale.",
    action:
      "kubectl get pods,lease -n <release namespace>: check the controller pods run and can update their Lease (RBAC, API server reachability, NetworkPolicy egress to the API server); read their logs.",
  },
  {
    id: "ControllerQueueStuck",
    title: "A controller's queue has work but nothing is worked on",
    meaning:
      "workqueue_depth stays above 0 while no item finished in the last 10 minutes: the leader's workers are blocked (a hung API call, a deadlock) and changes are not applied.",
    action:
      "Read the leader's log for the last reconciles; restart the leader pod (the other replica takes the lease); report the log if it happens again.",
  },
  {
    id: "ReconcileErrors",
    title: "Reconciles keep failing",
    meaning:
      "More than the configured share of a controller's reconciles ended in an error over 15 minutes: they are retried with backoff, but the resources do not converge.",
    action:
      "The leader's log names the resource and the error of each failed reconcile (RBAC, an admission webhook rejecting a child, a quota); kubectl get events -A --field-selector type=Warning shows what the resources report.",
  },
  {
    id: "DeliveriesFailing",
    title: "Webhook deliveries fail",
    meaning:
      "Most webhook delivery attempts over 15 minutes did not reach a 2xx answer (retried, failed or gone): receivers miss events until they answer again.",
    action:
      "Check the failing Webhooks' status.lastFailure (status code, error, response body) and the API's delivery log; fix or remove the receiver. A 410 answer disables a webhook.",
  },
  {
    id: "SignerTenantRefused",
    title: "A remote signer refuses most of a tenant's payments",
    meaning:
      "Over 15 minutes the API's auth webhook refused more than the configured share of one tenant's payments through a RemoteSigner (the outcome label says why: over_budget, price_exceeded, expired, unknown_tenant, wrong_scope, unauthenticated, foreign_session, uncountable): its streams stop being paid and orchestrators drop them.",
    action:
      "The API logs each refusal ('remote signer payment refused') with the reason the signer passed on to the gateway. Raise the tenant's budget or cap in the RemoteSigner's spec.tenants, extend expiresAt, or mint the tenant a signing token (livepeer-operator token --sub TENANT --signing); an unknown tenant ('' label) is a caller without a valid token.",
  },
  {
    id: "SignerAuthSlow",
    title: "The remote signers' auth webhook is slow",
    meaning:
      "The API's 99th percentile answer to remote signers' auth webhook calls is above the configured time: every payment of a session waits for it when its authorization expires, and the signer fails the payment after 5 s.",
    action:
      "Check the API pods' CPU and event-loop lag (its /metrics), the number of API replicas, and the node hooks' log; decisions do not wait for the delivery store (spend is written behind), so a slow store shows as warnings in the log rather than here.",
  },
  {
    id: "DeliveryBacklog",
    title: "Webhook deliveries wait too long",
    meaning:
      "The oldest undelivered event is older than the configured age: receivers are down or slow, or the API replicas cannot work the queue.",
    action:
      "Look at livepeer_webhook_delivery_attempts_total by result and the failing Webhooks' status.lastFailure; check the API pods and, with the postgres store, the database.",
  },
];

export const OPERATOR_ENTRY_BY_ID: ReadonlyMap<string, OperatorEntry> = new Map(
  OPERATOR_ENTRIES.map((e) => [e.id, e]),
);
