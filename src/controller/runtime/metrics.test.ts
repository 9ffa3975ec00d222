import { describe, expect, it } from "vitest";
import { RuntimeMetrics } from "./metrics.ts";

describe("metrics", () => {
  it("uses exactly the names controller-runtime dashboards know, with their labels", async () => {
    const m = new RuntimeMetrics({ processMetrics: false });
    m.controller("webhook", 2);
    const q = m.queue("webhook");
    q.added("Webhook");
    q.depth(1);
    q.queued(0.01);
    q.worked(0.02);
    q.retried();
    m.reconciled("webhook", "success", 0.01);
    m.reconciled("webhook", "error", 0.01);
    m.reconciled("webhook", "requeue_after", 0.01);
    m.leaderStatus.set({ name: "livepeer-operator-leader" }, 1);
    m.informer().synced("secrets", "", true);
    m.informer().restarted("secrets", "gone");
    const text = await m.registry.metrics();
    for (const line of [
      'controller_runtime_reconcile_total{controller="webhook",result="success"} 1',
      'controller_runtime_reconcile_total{controller="webhook",result="error"} 1',
      'controller_runtime_reconcile_total{controller="webhook",result="requeue"} 0',
      'controller_runtime_reconcile_total{controller="webhook",result="requeue_after"} 1',
      'controller_runtime_reconcile_errors_total{controller="webhook"} 1',
      'controller_runtime_reconcile_time_seconds_count{controller="webhook"} 3',
      'workqueue_depth{name="webhook"} 1',
      'workqueue_adds_total{name="webhook"} 1',
      'livepeer_operator_enqueues_total{controller="webhook",cause="Webhook"} 1',
      'workqueue_queue_duration_seconds_count{name="webhook"} 1',
      'workqueue_work_duration_seconds_count{name="webhook"} 1',
      'workqueue_retries_total{name="webhook"} 1',
      'leader_election_master_status{name="livepeer-operator-leader"} 1',
      'informer_synced{resource="secrets",namespace=""} 1',
      'informer_watch_restarts_total{resource="secrets",reason="gone"} 1',
    ]) {
      expect(text).toContain(line);
    }
    for (const type of [
      "# TYPE controller_runtime_reconcile_total counter",
      "# TYPE controller_runtime_reconcile_errors_total counter",
      "# TYPE controller_runtime_reconcile_time_seconds histogram",
      "# TYPE workqueue_depth gauge",
      "# TYPE workqueue_adds_total counter",
      "# TYPE workqueue_queue_duration_seconds histogram",
      "# TYPE workqueue_work_duration_seconds histogram",
      "# TYPE workqueue_retries_total counter",
    ]) {
      expect(text).toContain(type);
    }
  });

  it("keeps managers' registries apart (several in one process)", async () => {
    const a = new RuntimeMetrics({ processMetrics: false });
    const b = new RuntimeMetrics({ processMetrics: false });
    a.reconciled("x", "success", 0);
    expect(await b.registry.metrics()).not.toContain('controller="x"');
  });

  it("livepeer_operator_findings: 1 per finding in force on an object; gone when cleared or forgotten", async () => {
    const m = new RuntimeMetrics({ processMetrics: false });
    const f = m.findingsMetrics();
    const gw = { kind: "Gateway", namespace: "video", name: "gw" };
    const series = async () =>
      (await m.registry.metrics()).split("\n").filter((l) => l.startsWith("livepeer_operator_findings{"));
    f.set(gw, [
      { id: "GatewayUnfunded", severity: "error" },
      { id: "LowWalletBalance", severity: "warning" },
    ]);
    f.set({ ...gw, kind: "Orchestrator", name: "o" }, [{ id: "NotInActiveSet", severity: "warning" }]);
    expect(await series()).toEqual([
      'livepeer_operator_findings{kind="Gateway",namespace="video",name="gw",id="GatewayUnfunded",severity="error"} 1',
      'livepeer_operator_findings{kind="Gateway",namespace="video",name="gw",id="LowWalletBalance",severity="warning"} 1',
      'livepeer_operator_findings{kind="Orchestrator",namespace="video",name="o",id="NotInActiveSet",severity="warning"} 1',
    ]);
    // Refunded: the error is no longer in force, so its series goes (an alert resolves).
    f.set(gw, [{ id: "LowWalletBalance", severity: "warning" }]);
    f.set({ ...gw, kind: "Orchestrator", name: "o" }, []);
    expect(await series()).toEqual([
      'livepeer_operator_findings{kind="Gateway",namespace="video",name="gw",id="LowWalletBalance",severity="warning"} 1',
    ]);
  });

  it("livepeer_operator_condition: one series per condition with status and reason, replaced on change", async () => {
    const m = new RuntimeMetrics({ processMetrics: false });
    const f = m.findingsMetrics();
    const o = { kind: "Orchestrator", namespace: "video", name: "o" };
    const series = async () =>
      (await m.registry.metrics()).split("\n").filter((l) => l.startsWith("livepeer_operator_condition{"));
    f.conditions?.(o, [{ type: "Ready", status: "False", reason: "NodeUnreachable" }]);
    expect(await series()).toEqual([
      'livepeer_operator_condition{kind="Orchestrator",namespace="video",name="o",type="Ready",status="False",reason="NodeUnreachable"} 1',
    ]);
    // Serving again: the False series goes, so an alert on it resolves.
    f.conditions?.(o, [{ type: "Ready", status: "True", reason: "Serving" }]);
    expect(await series()).toEqual([
      'livepeer_operator_condition{kind="Orchestrator",namespace="video",name="o",type="Ready",status="True",reason="Serving"} 1',
    ]);
    f.conditions?.(o, []);
    expect(await series()).toEqual([]);
  });

  it("livepeer_operator_status_fact: numeric facts by name, a fact no longer reported is removed", async () => {
    const m = new RuntimeMetrics({ processMetrics: false });
    const f = m.findingsMetrics();
    const gw = { kind: "Gateway", namespace: "video", name: "gw" };
    const series = async () =>
      (await m.registry.metrics()).split("\n").filter((l) => l.startsWith("livepeer_operator_status_fact{"));
    f.facts?.(gw, { deposit: 0.25, reserve: 0 });
    expect(await series()).toEqual([
      'livepeer_operator_status_fact{kind="Gateway",namespace="video",name="gw",fact="deposit"} 0.25',
      'livepeer_operator_status_fact{kind="Gateway",namespace="video",name="gw",fact="reserve"} 0',
    ]);
    f.facts?.(gw, { deposit: 0.5 });
    expect(await series()).toEqual([
      'livepeer_operator_status_fact{kind="Gateway",namespace="video",name="gw",fact="deposit"} 0.5',
    ]);
  });
});
