// The Simulated condition: what the node's answers (or the pod's annotation) say, and, while
// nothing has been read, the last known answer (a restarted controller must not flap it).
import { describe, expect, it } from "vitest";
import type { DoctorReport, NodeReading } from "../doctor/index.ts";
import { simulatedVerdict } from "./pods.ts";

const pod = { metadata: { name: "o-0", uid: "u" } };
const reading = (simulated: boolean) =>
  ({ pod: "o-0", answered: ["/status"], simulated }) as unknown as NodeReading;
const report = (...readings: NodeReading[]): DoctorReport => ({ readings, findings: [] });
const wasTrue = {
  type: "Simulated",
  status: "True",
  reason: "NodeSimulator",
  message: "pod(s) o-0 served by the node simulator",
};
const wasFalse = { type: "Simulated", status: "False", reason: "RealNode", message: "no marker" };

describe("simulatedVerdict", () => {
  it.each([
    ["the node's answers say simulated", report(reading(true)), undefined, "True", "NodeSimulator"],
    ["a real node's answers", report(reading(false)), wasTrue, "False", "RealNode"],
    ["nothing read, nothing known", undefined, undefined, "Unknown", "NodeNotRead"],
    [
      "nothing read yet (a restarted controller): the last answer stands",
      undefined,
      wasTrue,
      "True",
      "NodeSimulator",
    ],
    ["nothing read yet, last known real", report(), wasFalse, "False", "RealNode"],
    [
      "nothing read, the previous Unknown stays Unknown",
      undefined,
      { ...wasTrue, status: "Unknown", reason: "NodeNotRead" },
      "Unknown",
      "NodeNotRead",
    ],
  ] as const)("%s", (_, r, previous, status, reason) => {
    expect(simulatedVerdict([pod], r, previous)).toMatchObject({ status, reason });
  });

  it("keeps the last message word for word (no drift in the stored condition)", () => {
    expect(simulatedVerdict([pod], undefined, wasTrue).message).toBe(wasTrue.message);
  });
});
