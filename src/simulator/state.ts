// The simulated node's mutable state and the control surface tests and scenarios use.
import type { EndpointFault, SimAction } from "./actions.ts";

export interface SimulatorSnapshot {
  sessionLimit: number;
  currentSessions: number;
  pricePerUnit: string;
  pixelsPerUnit: string;
  paymentCreateErrors: number;
  serviceUri: string | undefined;
  faults: EndpointFault[];
  /** Requests a `hang` fault is holding open now (each until its client or the server goes). */
  heldRequests: number;
  gpuMemoryUsed: Record<string, number>;
}

export interface SimulatorControl {
  /** Print lines to the node's log (glog-formatted unless they already look like node lines). */
  emitLog(lines: string | readonly string[]): void;
  /** Current sessions = n (live sessions count towards it; the rest are held by the steering). */
  setCurrentSessions(n: number): void;
  /** current sessions = the session limit (the orchestrator turns new work away). */
  reachSessionLimit(): void;
  addPaymentCreateErrors(n?: number): void;
  failEndpoint(fault: EndpointFault): void;
  /** Clear the fault of one path, or all of them. */
  clearFaults(path?: string): void;
  /** Fraction of GPU memory in use, for one GPU or all. */
  setGpuMemoryUsed(fraction: number, gpuId?: string): void;
  apply(action: SimAction): void;
  snapshot(): SimulatorSnapshot;
}

export class SimulatorState {
  sessionLimit: number;
  /** Sessions held by the steering (control.setCurrentSessions / scenarios), on top of live ones. */
  steeredSessions = 0;
  /** Sessions the simulated node is serving: an orchestrator's streams, a gateway's streams. */
  liveSessions = 0;
  pricePerUnit: string;
  pixelsPerUnit: string;
  paymentCreateErrors = 0;
  serviceUri: string | undefined;
  /** Per-gateway prices (/setPriceForBroadcaster, -pricePerGateway), by lower-cased address. */
  readonly broadcasterPrices = new Map<string, { pricePerUnit: string; pixelsPerUnit: string }>();
  readonly faults = new Map<string, EndpointFault>();
  /** Requests a `hang` fault is holding open. */
  heldRequests = 0;
  readonly gpuMemoryUsed: Map<string, number>;

  constructor(init: {
    sessionLimit: number;
    pricePerUnit: string;
    pixelsPerUnit: string;
    serviceUri?: string;
    gpuIds: string[];
  }) {
    this.sessionLimit = init.sessionLimit;
    this.pricePerUnit = init.pricePerUnit;
    this.pixelsPerUnit = init.pixelsPerUnit;
    this.serviceUri = init.serviceUri;
    this.gpuMemoryUsed = new Map(init.gpuIds.map((id) => [id, 0.25]));
  }

  get currentSessions(): number {
    return this.steeredSessions + this.liveSessions;
  }

  snapshot(): SimulatorSnapshot {
    return {
      sessionLimit: this.sessionLimit,
      currentSessions: this.currentSessions,
      pricePerUnit: this.pricePerUnit,
      pixelsPerUnit: this.pixelsPerUnit,
      paymentCreateErrors: this.paymentCreateErrors,
      serviceUri: this.serviceUri,
      faults: [...this.faults.values()],
      heldRequests: this.heldRequests,
      gpuMemoryUsed: Object.fromEntries(this.gpuMemoryUsed),
    };
  }
}

export function controlFor(
  state: SimulatorState,
  emit: (lines: readonly string[]) => void,
): SimulatorControl {
  const control: SimulatorControl = {
    emitLog: (lines) => emit(typeof lines === "string" ? [lines] : lines),
    setCurrentSessions: (n) => {
      state.steeredSessions = Math.max(0, n - state.liveSessions);
    },
    reachSessionLimit: () => {
      state.steeredSessions = Math.max(0, state.sessionLimit - state.liveSessions);
    },
    addPaymentCreateErrors: (n = 1) => {
      state.paymentCreateErrors += n;
    },
    failEndpoint: (fault) => {
      state.faults.set(fault.path, fault);
    },
    clearFaults: (path) => {
      if (path === undefined || path === "all") state.faults.clear();
      else state.faults.delete(path);
    },
    setGpuMemoryUsed: (fraction, gpuId) => {
      for (const id of state.gpuMemoryUsed.keys())
        if (gpuId === undefined || gpuId === id) state.gpuMemoryUsed.set(id, fraction);
    },
    apply: (action) => {
      if ("log" in action) control.emitLog(action.log);
      else if ("sessions" in action)
        action.sessions === "limit"
          ? control.reachSessionLimit()
          : control.setCurrentSessions(action.sessions);
      else if ("paymentCreateErrors" in action) control.addPaymentCreateErrors(action.paymentCreateErrors);
      else if ("fail" in action) control.failEndpoint(action.fail);
      else if ("clear" in action) control.clearFaults(action.clear);
      else control.setGpuMemoryUsed(action.gpuMemoryUsed, action.gpu);
    },
    snapshot: () => state.snapshot(),
  };
  return control;
}
