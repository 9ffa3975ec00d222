// The node doctor's Kubernetes side: for every resource a controller tracks, it looks at each of
// its node pods every period - the node's endpoints when the pod is Ready, and the container
// log's new lines through the Kubernetes API - and keeps what that shows: readings, findings
// with `since`. It never blocks a reconcile: the reconciler hands it the pods it sees and gets
// the latest report back at once; when a look changes the report, the doctor wakes the resource
// (the controller's queue) so the status follows.
//
// Logs are read, not followed: one bounded GET with sinceTime per pod per period (see
// log-cursor.ts). A followed log holds a connection from the controller through the API server
// to the kubelet, and a kubelet inotify instance, per pod for as long as the pod lives; a read
// holds nothing between periods, shares the limiter below with the endpoint reads, and cannot
// leak. The price is latency: a line shows up within one period.
import { createHash } from "node:crypto";
import { errorMessage, type ObjectKey } from "../../kube/index.ts";
import { CATALOG_BY_ID, ConditionMatcher, type Finding } from "../../node/diagnosis/index.ts";
import { CertificatePins, NodeConnection } from "../../node/wire/connection.ts";
import { ANONYMOUS } from "../../node/wire/identity.ts";
import { type Logger, silentLogger } from "../../process/log.ts";
import type { Finding as StatusFinding } from "../../schema/finding.ts";
import { Limiter } from "./limiter.ts";
import { LogCursor, parseTimedLine, type TimedLine } from "./log-cursor.ts";
import { LogFindings, type PodLife } from "./log-findings.ts";
import { type NodeReading, readNode } from "./node-reading.ts";
import type { PodLogChunk, PodLogSource } from "./pod-log-source.ts";
import { type NodeTarget, serviceUrl } from "./target.ts";
import { endpointFindings, logStatusFindings } from "./verdicts.ts";

export interface NodeDoctorOptions {
  /** Where the node pods' logs are read (in the controller: the Kubernetes API, pod-log.ts). */
  logs: PodLogSource;
  /** Called when a resource's report changed (enqueue its key). */
  wake(key: ObjectKey): void;
  log?: Logger;
  /** Between two looks at a pod (default 30 s). */
  periodMs?: number;
  /** Sooner while its endpoints fail, so recovery shows quickly (default 5 s, doubling up to the period). */
  retryMs?: number;
  endpointTimeoutMs?: number;
  logTimeoutMs?: number;
  /** Pods looked at concurrently (each look: up to 4 node reads and 1-2 log reads). */
  concurrency?: number;
  /**
   * Periodic looks started per second, at most (default 20). Each reads a log through the API
   * server, so the doctor's load stays bounded however many pods there are: past periodMs x this
   * many pods (600 by default), each pod is looked at less often than every period - pods / rate
   * seconds. A pod that just changed (new, Ready flipped, restarted) is looked at at once, within
   * `concurrency`, whatever the rate: that look is what a status is waiting for.
   */
  looksPerSecond?: number;
  /** Lines read from a log the doctor has not read before (a fresh container's log is shorter). */
  firstReadTailLines?: number;
  /** Bytes per log read; a chatty node is caught up over several reads. */
  logLimitBytes?: number;
  /** The node's container in the pod. */
  container?: string;
  tickMs?: number;
  /** Every new log line, once (a gateway's stream ends are read from them). */
  onLine?: (key: ObjectKey, pod: string, line: TimedLine) => void;
}

export interface DoctorReport {
  /** The latest reading of each Ready pod that has been read. */
  readings: NodeReading[];
  /** Log and endpoint findings in force, one per catalog id, errors first. */
  findings: StatusFinding[];
}

/** One look at a node pod (its endpoints and its log): whose, and when. */
export interface DoctorLook {
  key: ObjectKey;
  pod: string;
  at: number;
}

/** How many of the latest looks `recentLooks()` keeps. */
const RECENT_LOOKS = 64;

export interface DoctorStats {
  resources: number;
  pods: number;
  /** Looks running or waiting for a slot. */
  inFlight: number;
  looks: number;
  logReads: number;
  endpointReads: number;
}

interface PodState {
  target: NodeTarget;
  cursor: LogCursor;
  /** restartCount when the log was last read: a higher one means a previous container to read. */
  restartsRead: number | undefined;
  reading: NodeReading | undefined;
  findings: Finding[];
  dueAt: number;
  busy: boolean;
  abort: AbortController;
  /** The last log read's failure, said once (not once per period). */
  logError: string | undefined;
  /** Looks in a row whose endpoints failed: the retry backs off from retryMs to periodMs. */
  failures: number;
  /** Something happened to the pod (new, Ready changed, restarted): looked at now, outside the rate. */
  changed: boolean;
  /** An orchestrator's service port, one HTTP/2 connection kept while the pod is looked at. */
  service: NodeConnection | undefined;
}

interface Patient {
  key: ObjectKey;
  namespace: string;
  pods: Map<string, PodState>;
  log: LogFindings;
  /** When each endpoint finding was first seen, while it holds. */
  endpointSince: Map<string, Date>;
  /** Of the report last handed out or woken for. */
  fingerprint: string;
}

const SEVERITY_RANK = { error: 0, warning: 1, normal: 2 } as const;

export class NodeDoctor {
  readonly #o: Required<Omit<NodeDoctorOptions, "log">> & { log: Logger };
  readonly #patients = new Map<ObjectKey, Patient>();
  readonly #limiter: Limiter;
  readonly #matcher = new ConditionMatcher();
  readonly #pins = new CertificatePins();
  /**
   * Who asks orchestrators for their info: no one (an empty address and signature, as the official
   * SDK asks without a signer). Off chain a node answers it; on chain a node quotes only a signed,
   * funded asker, so it withholds its info (a remote signer's address is the way, issue 30). A
   * key of the controller's own would fare no better there (no reserve) and would bring ethers'
   * weight into the controller.
   */
  readonly #identity = ANONYMOUS;
  #timer: NodeJS.Timeout | undefined;
  #term: AbortSignal | undefined;
  #stats = { looks: 0, logReads: 0, endpointReads: 0, inFlight: 0 };
  readonly #recent: DoctorLook[] = [];
  /** Looks that may start now (a token bucket refilled at looksPerSecond, holding one second's). */
  #tokens: number;
  #tokensAt = Date.now();

  constructor(o: NodeDoctorOptions) {
    this.#o = {
      periodMs: 30_000,
      retryMs: 5_000,
      endpointTimeoutMs: 2_000,
      logTimeoutMs: 10_000,
      concurrency: 32,
      looksPerSecond: 20,
      firstReadTailLines: 500,
      logLimitBytes: 256 * 1024,
      container: "livepeer",
      tickMs: 1_000,
      onLine: () => {},
      ...o,
      log: o.log ?? silentLogger,
    };
    this.#limiter = new Limiter(this.#o.concurrency);
    this.#tokens = this.#o.looksPerSecond;
  }

  /**
   * The resource's node pods as the reconciler sees them now; returns the latest report. `seed`:
   * the findings of the status so far (a fatal start-up line may be older than the first read).
   * `signal`: the controller's term; when it aborts (leadership lost, shutdown) all is dropped.
   */
  observe(
    key: ObjectKey,
    targets: readonly NodeTarget[],
    opts: { namespace: string; seed?: readonly StatusFinding[]; signal?: AbortSignal },
  ): DoctorReport {
    if (opts.signal) this.#joinTerm(opts.signal);
    let patient = this.#patients.get(key);
    if (!patient) {
      patient = {
        key,
        namespace: opts.namespace,
        pods: new Map(),
        log: new LogFindings(),
        endpointSince: new Map(),
        fingerprint: "",
      };
      for (const f of opts.seed ?? []) {
        if (CATALOG_BY_ID.get(f.id)?.clears?.after === "restart")
          patient.log.seed(f.id, new Date(f.since), f.message);
      }
      this.#patients.set(key, patient);
    }
    const now = Date.now();
    const seen = new Set<string>();
    for (const t of targets) {
      seen.add(t.pod);
      const state = patient.pods.get(t.pod);
      if (!state || state.target.uid !== t.uid) {
        state?.abort.abort();
        patient.pods.set(t.pod, newPodState(t, now));
        continue;
      }
      const before = state.target;
      state.target = t;
      // Something happened to the pod: look now rather than at the end of the period.
      if (before.ready !== t.ready || before.restartCount !== t.restartCount || before.hasLog !== t.hasLog) {
        state.dueAt = now;
        state.changed = true;
      }
      if (!t.ready) state.reading = undefined;
    }
    for (const [pod, state] of patient.pods) {
      if (seen.has(pod)) continue;
      state.abort.abort();
      patient.pods.delete(pod);
    }
    this.#schedule();
    const report = this.#report(patient);
    patient.fingerprint = fingerprint(report);
    return report;
  }

  /** The resource is gone: stop looking, abort reads in flight, drop what was seen. */
  forget(key: ObjectKey): void {
    const patient = this.#patients.get(key);
    if (!patient) return;
    for (const state of patient.pods.values()) state.abort.abort();
    this.#patients.delete(key);
    if (this.#patients.size === 0) this.#unschedule();
  }

  /** Forgets resources `keep` says no longer exist (a missed delete event). */
  sweep(keep: (key: ObjectKey) => boolean): void {
    for (const key of [...this.#patients.keys()]) if (!keep(key)) this.forget(key);
  }

  /**
   * How often each pod is looked at now: the period, or longer once there are more pods than
   * looksPerSecond allows in one (a reading older than twice this is stale).
   */
  lookIntervalMs(): number {
    let pods = 0;
    for (const p of this.#patients.values()) pods += p.pods.size;
    return Math.max(this.#o.periodMs, Math.ceil((pods / this.#o.looksPerSecond) * 1000));
  }

  /** The latest reading of each Ready pod of a resource, by pod uid (what a rollout asks before a restart). */
  latestReadings(key: ObjectKey): Map<string, NodeReading> {
    const states = [...(this.#patients.get(key)?.pods.values() ?? [])];
    return new Map(states.flatMap((s) => (s.target.ready && s.reading ? [[s.target.uid, s.reading]] : [])));
  }

  tracking(key: ObjectKey): boolean {
    return this.#patients.has(key);
  }

  stats(): DoctorStats {
    let pods = 0;
    for (const p of this.#patients.values()) pods += p.pods.size;
    return {
      resources: this.#patients.size,
      pods,
      inFlight: this.#stats.inFlight,
      looks: this.#stats.looks,
      logReads: this.#stats.logReads,
      endpointReads: this.#stats.endpointReads,
    };
  }

  /** The latest looks, oldest first (at most 64): what was read lately, for diagnosis and tests. */
  recentLooks(): DoctorLook[] {
    return [...this.#recent];
  }

  stop(): void {
    for (const key of [...this.#patients.keys()]) this.forget(key);
    this.#unschedule();
  }

  #joinTerm(signal: AbortSignal): void {
    if (signal === this.#term) return;
    this.stop();
    this.#term = signal;
    signal.addEventListener(
      "abort",
      () => {
        if (this.#term === signal) this.stop();
      },
      { once: true },
    );
  }

  #schedule(): void {
    if (this.#timer || this.#patients.size === 0) return;
    this.#timer = setInterval(() => this.#tick(), this.#o.tickMs);
    this.#timer.unref();
    queueMicrotask(() => this.#tick());
  }

  #unschedule(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #tick(): void {
    const now = Date.now();
    const rate = this.#o.looksPerSecond;
    this.#tokens = Math.min(rate, this.#tokens + ((now - this.#tokensAt) / 1000) * rate);
    this.#tokensAt = now;
    const due: Array<[Patient, PodState]> = [];
    for (const patient of this.#patients.values()) {
      for (const state of patient.pods.values()) {
        if (state.busy || state.dueAt > now) continue;
        if (state.changed) void this.#look(patient, state);
        else due.push([patient, state]);
      }
    }
    // More due than the rate allows: the longest overdue first, the rest at the next ticks.
    if (due.length > this.#tokens) due.sort((a, b) => a[1].dueAt - b[1].dueAt);
    for (const [patient, state] of due) {
      if (this.#tokens < 1) break;
      this.#tokens--;
      void this.#look(patient, state);
    }
  }

  async #look(patient: Patient, state: PodState): Promise<void> {
    state.busy = true;
    state.changed = false;
    this.#stats.inFlight++;
    let again = this.#o.periodMs;
    try {
      await this.#limiter.run(async () => {
        const signal = state.abort.signal;
        if (signal.aborted) return;
        this.#stats.looks++;
        const t = state.target;
        this.#recent.push({ key: patient.key, pod: t.pod, at: Date.now() });
        if (this.#recent.length > RECENT_LOOKS) this.#recent.shift();
        const [reading, more] = await Promise.all([
          t.ready ? this.#readEndpoints(state, signal) : undefined,
          t.hasLog ? this.#readLog(patient, state, signal) : false,
        ]);
        if (signal.aborted) return;
        state.reading = t.ready ? reading : undefined;
        state.findings = reading && !reading.failed ? endpointFindings(t, reading) : [];
        state.failures = reading?.failed ? state.failures + 1 : 0;
        if (reading?.failed) again = Math.min(this.#o.periodMs, this.#o.retryMs * 2 ** (state.failures - 1));
        if (more) again = 0;
      });
    } catch (err) {
      this.#o.log.debug("looking at a node pod failed", { pod: state.target.pod, error: errorMessage(err) });
    } finally {
      state.busy = false;
      state.dueAt = Date.now() + again;
      this.#stats.inFlight--;
    }
    if (this.#patients.get(patient.key) !== patient || state.abort.signal.aborted) return;
    const next = fingerprint(this.#report(patient));
    if (next !== patient.fingerprint) {
      patient.fingerprint = next;
      this.#o.wake(patient.key);
    }
  }

  #readEndpoints(state: PodState, signal: AbortSignal): Promise<NodeReading> {
    this.#stats.endpointReads++;
    const t = state.target;
    const connection = this.#serviceConnection(state);
    return readNode(t, {
      timeoutMs: this.#o.endpointTimeoutMs,
      signal,
      ...(connection ? { service: { connection, identity: this.#identity }, previous: state.reading } : {}),
    });
  }

  /**
   * The pod's service port, kept open between looks and closed with the pod's state. Its
   * self-signed certificate is pinned on first use for this run of the node (pod uid and restart
   * count): a restart makes a new one, which is then pinned in turn.
   */
  #serviceConnection(state: PodState): NodeConnection | undefined {
    const t = state.target;
    if (t.role !== "orchestrator" || t.servicePort === undefined || !t.ip) return undefined;
    const url = serviceUrl(t.ip, t.servicePort);
    const pinKey = `${t.uid}/${t.restartCount}`;
    if (state.service?.url !== url) {
      state.service?.close();
      const connection = new NodeConnection(url, this.#pins, pinKey);
      state.service = connection;
      state.abort.signal.addEventListener("abort", () => connection.close(), { once: true });
    }
    state.service.setPinKey(pinKey);
    return state.service;
  }

  /** Reads the log's new lines (the previous container's first, after a restart); true if cut short. */
  async #readLog(patient: Patient, state: PodState, signal: AbortSignal): Promise<boolean> {
    const t = state.target;
    const restarted = t.restartCount > (state.restartsRead ?? 0);
    let more = false;
    for (const previous of restarted ? [true, false] : [false]) {
      this.#stats.logReads++;
      let chunk: PodLogChunk | undefined;
      try {
        chunk = await this.#o.logs.read({
          namespace: patient.namespace,
          pod: t.pod,
          container: this.#o.container,
          from: state.cursor.from(this.#o.firstReadTailLines),
          previous,
          limitBytes: this.#o.logLimitBytes,
          timeoutMs: this.#o.logTimeoutMs,
          signal,
        });
      } catch (err) {
        // The previous container's log may be gone. Anything else (no permission to read
        // pods/log, say) is said once, until a read succeeds again.
        const error = errorMessage(err);
        if (!previous && !signal.aborted && error !== state.logError) {
          state.logError = error;
          this.#o.log.warn("could not read a node pod's log; findings from its log are missing", {
            pod: `${patient.namespace}/${t.pod}`,
            error,
          });
        }
        continue;
      }
      // No previous container, or a pod on its way out: nothing to read.
      if (!chunk) continue;
      if (!previous) state.logError = undefined;
      state.cursor.beginRead();
      let fresh = 0;
      for (const raw of chunk.lines) {
        const line = parseTimedLine(raw);
        if (!line || !state.cursor.accept(line)) continue;
        fresh++;
        this.#o.onLine(patient.key, t.pod, line);
        for (const id of this.#matcher.match(line.text)) patient.log.record(id, t.pod, line.at, line.text);
      }
      if (chunk.truncated) {
        more = true;
        if (fresh === 0) {
          state.cursor.skipSecond();
          this.#o.log.warn("a node logged more in one second than a read carries: skipped the rest of it", {
            pod: t.pod,
          });
        }
      }
    }
    state.restartsRead = t.restartCount;
    return more;
  }

  #report(patient: Patient): DoctorReport {
    const now = new Date();
    const states = [...patient.pods.values()];
    const lives: PodLife[] = states.map((s) => ({
      pod: s.target.pod,
      ready: s.target.ready,
      startedAt: s.target.startedAt,
    }));
    const findings = logStatusFindings(patient.log.inForce(now, lives));
    const endpoint = new Map<string, StatusFinding>();
    for (const s of states) {
      for (const f of s.findings) {
        if (endpoint.has(f.id)) continue;
        const since = patient.endpointSince.get(f.id) ?? now;
        patient.endpointSince.set(f.id, since);
        endpoint.set(f.id, {
          id: f.id,
          severity: f.severity,
          message: `${f.message} (pod ${s.target.pod}). ${f.action}`,
          since: since.toISOString().replace(/\.\d+Z$/, "Z"),
        });
      }
    }
    for (const id of [...patient.endpointSince.keys()])
      if (!endpoint.has(id)) patient.endpointSince.delete(id);
    const byId = new Map(findings.map((f) => [f.id, f]));
    for (const f of endpoint.values()) if (!byId.has(f.id)) byId.set(f.id, f);
    return {
      readings: states.flatMap((s) => (s.target.ready && s.reading ? [s.reading] : [])),
      findings: [...byId.values()].sort(
        (a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || a.id.localeCompare(b.id),
      ),
    };
  }
}

function newPodState(target: NodeTarget, now: number): PodState {
  return {
    target,
    cursor: new LogCursor(),
    restartsRead: undefined,
    reading: undefined,
    findings: [],
    dueAt: now,
    busy: false,
    abort: new AbortController(),
    logError: undefined,
    failures: 0,
    changed: true,
    service: undefined,
  };
}

/** What of a report the status shows (hashed: one is kept per resource): a change is worth a reconcile. */
function fingerprint(r: DoctorReport): string {
  const shown = JSON.stringify([
    r.readings.map((x) => [
      x.pod,
      x.answered,
      x.simulated,
      x.failed?.reason,
      x.failed?.message,
      x.price,
      x.withheld,
      x.health,
      x.quotes,
      // A pod becoming idle (or busy) matters to a rollout waiting for its sessions to end.
      x.sessions === 0,
      // status.ai.live: the runners the node offers and those in session.
      x.live,
    ]),
    r.findings,
  ]);
  return createHash("sha1").update(shown).digest("base64");
}
