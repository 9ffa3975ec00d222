// The node doctor inside the controllers: reads node pods' endpoints and logs, keeps findings,
// and says what they mean for a resource's conditions.
export {
  type DoctorLook,
  type DoctorReport,
  type DoctorStats,
  NodeDoctor,
  type NodeDoctorOptions,
} from "./doctor.ts";
export type { LogOccurrence, PodLife } from "./log-findings.ts";
export type { EndpointFailureInfo, NodeReading, Quote } from "./node-reading.ts";
export { KubePodLogs } from "./pod-log.ts";
export type { PodLogChunk, PodLogRead, PodLogSource } from "./pod-log-source.ts";
export { type NodeTarget, nodeUrl } from "./target.ts";
export { nodeReachableVerdict, type PreviousCondition, reachability, simulatedPods } from "./verdicts.ts";
