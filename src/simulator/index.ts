// A go-livepeer stand-in for tests and the embedded default: same flags, the spec's endpoints,
// the node's log lines, and levers to make it misbehave on purpose.
export type { EndpointFault, SimAction } from "./actions.ts";
export { SimActionSchema } from "./actions.ts";
export { formatGlog } from "./glog.ts";
export type { PaymentErrorsMetricName } from "./metrics.ts";
export type { Scenario, ScenarioStep } from "./scenario.ts";
export { loadScenario, parseScenario } from "./scenario.ts";
export type { NodeSimulator, NodeSimulatorOptions } from "./simulator.ts";
export { NodeStartError, SIMULATED_VERSION, startNodeSimulator } from "./simulator.ts";
export type { SimulatorControl, SimulatorSnapshot } from "./state.ts";
