// Ready for any node resource (pure), as an ordered list of reasons it does not serve: what holds
// the rollout, flags the node would refuse, an unusable keystore, the resource's own blockers (a
// gateway with no orchestrator to pay), an error finding, pods not Ready, endpoints not answering.
// The first that applies is the reason; warnings never flip Ready.
import type { FlagProblem } from "../../node/config/index.ts";
import type { Finding } from "../../schema/finding.ts";
import type { Verdict } from "../runtime/index.ts";
import type { PodFacts } from "./facts.ts";
import { type Hold, holdVerdict } from "./holds.ts";
import { notReadyMessage } from "./pods.ts";

export interface NodeReadyInput {
  holds: readonly Hold[];
  problems: readonly FlagProblem[];
  /** What the keystore Secret means for Ready (undefined: usable or unused). */
  keystore: Verdict | undefined;
  /** The resource's own reasons it cannot serve, in order (undefined: none). */
  blockers?: readonly (Verdict | undefined)[];
  findings: readonly Finding[];
  pods: readonly PodFacts[];
  reachable: Verdict;
  /** Ready=True's message, told how many warning findings there are. */
  serving(warnings: number): string;
}

export function nodeReady(i: NodeReadyInput): Verdict {
  // A devnet deployment that cannot be read, a service address not known yet: said first, since
  // the node's flags lack what they would supply.
  const held = holdVerdict(i.holds);
  if (held) return held;
  const errors = i.problems.filter((p) => p.severity === "error");
  if (errors.length) {
    return {
      status: "False",
      reason: "InvalidNodeConfiguration",
      message: `the node would refuse its flags: ${errors.map((e) => `${e.message} - ${e.fix}`).join("; ")}`,
    };
  }
  if (i.keystore) return i.keystore;
  const blocker = i.blockers?.find((b) => b !== undefined);
  if (blocker) return blocker;
  const podsMessage = notReadyMessage(i.pods);
  // An error finding stops service and usually explains the rest (a crash-looping pod, say).
  const stopping = i.findings.filter((f) => f.severity === "error");
  if (stopping.length) {
    return {
      status: "False",
      reason: stopping[0]!.id,
      message: `${stopping.map((f) => `${f.id}: ${f.message}`).join("; ")}${podsMessage ? `; ${podsMessage}` : ""}`,
    };
  }
  if (i.pods.length === 0) return { status: "False", reason: "PodPending", message: "no node pod yet" };
  if (podsMessage) return { status: "False", reason: "PodsNotReady", message: podsMessage };
  if (i.reachable.status === "False") {
    return { status: "False", reason: "NodeUnreachable", message: i.reachable.message };
  }
  if (i.reachable.status === "Unknown") {
    return { status: "Unknown", reason: "CheckingNode", message: `pods Ready; ${i.reachable.message}` };
  }
  return {
    status: "True",
    reason: "Serving",
    message: i.serving(i.findings.filter((f) => f.severity === "warning").length),
  };
}

export const warningsNote = (warnings: number) =>
  warnings ? `; ${warnings} warning finding(s), see status.findings` : "";
