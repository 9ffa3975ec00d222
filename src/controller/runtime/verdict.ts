// What one step or check concluded, in a condition's words: True (passes), False (fails, with
// the reason and the next step) or Unknown (not known yet). The reconcilers' steps, the node
// doctor and the status computations all answer with one; a condition is a verdict with a type.
import type { Condition } from "../../schema/condition.ts";

export type Verdict = Pick<Condition, "status" | "reason" | "message">;
