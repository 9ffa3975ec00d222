// What one step or check concluded, in a condition's words: True (passes), False (fails, with
// the reason and the next step) or Unknown (not known yet). The reconcilers' steps, the node
// doctor and the status computations all answer with one; a condition is a verdict with a type.
import type { Condition } from "../../schema/condition.ts";

export type Verdict = Pick<Condition, "status" | "reason" | "message"> & {
  /**
   * Unknown only because nothing has been read yet (the controller just started and has not asked
   * the chain or the node): a True or False already in the status stands, with its
   * lastTransitionTime. An operator restart or upgrade is not a change in what it describes.
   */
  unread?: true;
};
