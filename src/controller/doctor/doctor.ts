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

/**
 * A node pod as last observed, and what the doctor keeps of it: one object per pod (the target's
 * fields are copied in, its start time as a number). Kept for as long as the pod is, so only what
 * a look needs between looks is here: an abort controller exists while a look runs, the log
 * cursor once a log was read, the service connection once the node answered /status.
 */
interface PodState {
  pod: string;
  uid: string;
  ip: string | undefined;
  cliPort: number;
  servicePort: number | undefined;
  role: NodeTarget["role"];
  ready: boolean;
  hasLog: boolean;
  restartCount: number;
  /** When the current container started (epoch ms); undefined while none runs. */
  startedAtMs: number | undefined;
  aiExpected: boolean;
  quotes: boolean | undefined;
  liveExpected: boolean | undefined;
  /** Where the log was read up to; undefined until a read brought an answer. */
  cursor: LogCursor | undefined;
  /** restartCount when the log was last read: a higher one means a previous container to read. */
  restartsRead: number | undefined;
  reading: NodeReading | undefined;
  findings: readonly Finding[];
  dueAt: number;
  busy: boolean;
  /** Aborts the look in flight (the pod is dropped); undefined between looks. */
  abort: AbortController | undefined;
  /**
   * The last log read's failure, said once (not once per period): a hash of its text, so a pod
   * whose log cannot be read does not hold the text between periods.
   */
  logError: number | undefined;
  /** Looks in a row whose endpoints failed: the retry backs off from retryMs to periodMs. */
  failures: number;
  /** Something happened to the pod (new, Ready changed, restarted): looked at now, outside the rate. */
  changed: boolean;
  /** An orchestrator's service port, one HTTP/2 connection kept while the pod is looked at. */
  service: NodeConnection | undefined;
  /** Dropped (replaced, gone, forgotten): a look in flight ends without a word. */
  gone: boolean;
}

interface Patient {
  key: ObjectKey;
  namespace: string;
  /** In the order first seen (a pod replaced under its name keeps its place), as a Map keeps keys. */
  pods: PodState[];
  /** What its logs showed; undefined while nothing is in force. */
  log: LogFindings | undefined;
  /** When each endpoint finding was first seen (epoch ms), while it holds; undefined while none. */
  endpointSince: Map<string, number> | undefined;
  /** Of the report last handed out or woken for (48 bits of its hash). */
  fingerprint: number;
}

const NO_FINDINGS: readonly Finding[] = Object.freeze([]);

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
   * the findings of the status so far (a fatal start-up line may be older than the first read),
   * taken when the doctor first sees the resource. `signal`: the controller's term; when it aborts
   * (leadership lost, shutdown) all is dropped. A resource with no pods and nothing in force is not
   * kept when there is no seed (the next call starts it the same way); with one it is, so the
   * status is read for findings once.
   */
  observe(
    key: ObjectKey,
    targets: readonly NodeTarget[],
    opts: { namespace: string; seed?: readonly StatusFinding[]; signal?: AbortSignal },
  ): DoctorReport {
    if (opts.signal) this.#joinTerm(opts.signal);
    const now = Date.now();
    let patient = this.#patients.get(key);
    if (!patient) {
      patient = {
        key,
        namespace: opts.namespace,
        pods: targets.map((t) => newPodState(t, now)),
        log: undefined,
        endpointSince: undefined,
        fingerprint: 0,
      };
      for (const f of opts.seed ?? []) {
        if (CATALOG_BY_ID.get(f.id)?.clears?.after === "restart")
          logOf(patient).seed(f.id, new Date(f.since), f.message);
      }
      this.#patients.set(key, patient);
    } else {
      this.#update(patient, targets, now);
    }
    const report = this.#report(patient);
    if (patient.pods.length === 0 && !patient.log && opts.seed === undefined) {
      this.#patients.delete(key);
      if (this.#patients.size === 0) this.#unschedule();
      return report;
    }
    this.#schedule();
    patient.fingerprint = fingerprint(report);
    return report;
  }

  /** A known resource's pods now: new ones added, replaced ones (another uid) renewed, gone ones dropped. */
  #update(patient: Patient, targets: readonly NodeTarget[], now: number): void {
    const pods = patient.pods;
    let added: PodState[] | undefined;
    for (const t of targets) {
      const i = pods.findIndex((s) => s.pod === t.pod);
      const state = pods[i];
      if (!state || state.uid !== t.uid) {
        const fresh = newPodState(t, now);
        if (state) {
          drop(state);
          pods[i] = fresh;
        } else {
          added ??= [];
          added.push(fresh);
        }
        continue;
      }
      // Something happened to the pod: look now rather than at the end of the period.
      if (state.ready !== t.ready || state.restartCount !== t.restartCount || state.hasLog !== t.hasLog) {
        state.dueAt = now;
        state.changed = true;
      }
      adopt(state, t);
      if (!t.ready) state.reading = undefined;
    }
    let removed = false;
    for (const state of pods) {
      if (targets.some((t) => t.pod === state.pod)) continue;
      drop(state);
      removed = true;
    }
    if (added || removed) patient.pods = exactly([...pods.filter((s) => !s.gone), ...(added ?? [])]);
  }

  /** The resource is gone: stop looking, abort reads in flight, drop what was seen. */
  forget(key: ObjectKey): void {
    const patient = this.#patients.get(key);
    if (!patient) return;
    for (const state of patient.pods) drop(state);
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
    for (const p of this.#patients.values()) pods += p.pods.length;
    return Math.max(this.#o.periodMs, Math.ceil((pods / this.#o.looksPerSecond) * 1000));
  }

  /** The latest reading of each Ready pod of a resource, by pod uid (what a rollout asks before a restart). */
  latestReadings(key: ObjectKey): Map<string, NodeReading> {
    const states = this.#patients.get(key)?.pods ?? [];
    return new Map(states.flatMap((s) => (s.ready && s.reading ? [[s.uid, s.reading]] : [])));
  }

  tracking(key: ObjectKey): boolean {
    return this.#patients.has(key);
  }

  stats(): DoctorStats {
    let pods = 0;
    for (const p of this.#patients.values()) pods += p.pods.length;
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
      for (const state of patient.pods) {
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
        if (state.gone) return;
        const abort = new AbortController();
        state.abort = abort;
        const signal = abort.signal;
        this.#stats.looks++;
        // The pod as it is when the look starts (the reconciler may update it meanwhile).
        const t = targetOf(state);
        this.#recent.push({ key: patient.key, pod: t.pod, at: Date.now() });
        if (this.#recent.length > RECENT_LOOKS) this.#recent.shift();
        const [reading, more] = await Promise.all([
          t.ready ? this.#readEndpoints(state, t, signal) : undefined,
          t.hasLog ? this.#readLog(patient, state, t, signal) : false,
        ]);
        if (signal.aborted) return;
        state.reading = t.ready ? reading : undefined;
        const findings = reading && !reading.failed ? endpointFindings(t, reading) : NO_FINDINGS;
        state.findings = findings.length > 0 ? findings : NO_FINDINGS;
        state.failures = reading?.failed ? state.failures + 1 : 0;
        if (reading?.failed) again = Math.min(this.#o.periodMs, this.#o.retryMs * 2 ** (state.failures - 1));
        if (more) again = 0;
      });
    } catch (err) {
      this.#o.log.debug("looking at a node pod failed", { pod: state.pod, error: errorMessage(err) });
    } finally {
      state.busy = false;
      state.abort = undefined;
      state.dueAt = Date.now() + again;
      this.#stats.inFlight--;
      // A connection made by a look that outlived its pod.
      if (state.gone) drop(state);
    }
    if (this.#patients.get(patient.key) !== patient || state.gone) return;
    const next = fingerprint(this.#report(patient));
    if (next !== patient.fingerprint) {
      patient.fingerprint = next;
      this.#o.wake(patient.key);
    }
  }

  #readEndpoints(state: PodState, t: NodeTarget, signal: AbortSignal): Promise<NodeReading> {
    this.#stats.endpointReads++;
    const service = t.role === "orchestrator" && t.servicePort !== undefined && !!t.ip;
    // A connection kept from earlier looks follows the pod (its address, its restarts) now; a
    // new one is made once the node answers /status (one that never does costs none).
    if (service && state.service) this.#serviceConnection(state, t);
    return readNode(t, {
      timeoutMs: this.#o.endpointTimeoutMs,
      signal,
      ...(service
        ? {
            service: { connection: () => this.#serviceConnection(state, t), identity: this.#identity },
            previous: state.reading,
          }
        : {}),
    });
  }

  /**
   * The pod's service port, kept open between looks and closed with the pod's state. Its
   * self-signed certificate is pinned on first use for this run of the node (pod uid and restart
   * count): a restart makes a new one, which is then pinned in turn.
   */
  #serviceConnection(state: PodState, t: NodeTarget): NodeConnection {
    const url = serviceUrl(t.ip ?? "", t.servicePort ?? 0);
    const pinKey = `${t.uid}/${t.restartCount}`;
    if (state.service?.url !== url) {
      state.service?.close();
      state.service = new NodeConnection(url, this.#pins, pinKey);
    }
    state.service.setPinKey(pinKey);
    return state.service;
  }

  /** Reads the log's new lines (the previous container's first, after a restart); true if cut short. */
  async #readLog(patient: Patient, state: PodState, t: NodeTarget, signal: AbortSignal): Promise<boolean> {
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
          from: state.cursor?.from(this.#o.firstReadTailLines) ?? { tailLines: this.#o.firstReadTailLines },
          previous,
          limitBytes: this.#o.logLimitBytes,
          timeoutMs: this.#o.logTimeoutMs,
          signal,
        });
      } catch (err) {
        // The previous container's log may be gone. Anything else (no permission to read
        // pods/log, say) is said once, until a read succeeds again.
        const error = errorMessage(err);
        const said = textHash(error);
        if (!previous && !signal.aborted && said !== state.logError) {
          state.logError = said;
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
      state.cursor ??= new LogCursor();
      const cursor = state.cursor;
      cursor.beginRead();
      let fresh = 0;
      for (const raw of chunk.lines) {
        const line = parseTimedLine(raw);
        if (!line || !cursor.accept(line)) continue;
        fresh++;
        this.#o.onLine(patient.key, t.pod, line);
        for (const id of this.#matcher.match(line.text)) logOf(patient).record(id, t.pod, line.at, line.text);
      }
      if (chunk.truncated) {
        more = true;
        if (fresh === 0) {
          cursor.skipSecond();
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
    const states = patient.pods;
    let findings: StatusFinding[] = [];
    if (patient.log) {
      const lives: PodLife[] = states.map((s) => ({
        pod: s.pod,
        ready: s.ready,
        startedAt: s.startedAtMs === undefined ? undefined : new Date(s.startedAtMs),
      }));
      findings = logStatusFindings(patient.log.inForce(now, lives));
      if (patient.log.size === 0) patient.log = undefined;
    }
    const endpoint = new Map<string, StatusFinding>();
    for (const s of states) {
      for (const f of s.findings) {
        if (endpoint.has(f.id)) continue;
        const since = patient.endpointSince?.get(f.id) ?? now.getTime();
        patient.endpointSince ??= new Map();
        patient.endpointSince.set(f.id, since);
        endpoint.set(f.id, {
          id: f.id,
          severity: f.severity,
          message: `${f.message} (pod ${s.pod}). ${f.action}`,
          since: new Date(since).toISOString().replace(/\.\d+Z$/, "Z"),
        });
      }
    }
    if (patient.endpointSince) {
      for (const id of [...patient.endpointSince.keys()])
        if (!endpoint.has(id)) patient.endpointSince.delete(id);
      if (patient.endpointSince.size === 0) patient.endpointSince = undefined;
    }
    const byId = new Map(findings.map((f) => [f.id, f]));
    for (const f of endpoint.values()) if (!byId.has(f.id)) byId.set(f.id, f);
    return {
      readings: states.flatMap((s) => (s.ready && s.reading ? [s.reading] : [])),
      findings: [...byId.values()].sort(
        (a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || a.id.localeCompare(b.id),
      ),
    };
  }
}

function newPodState(t: NodeTarget, now: number): PodState {
  return {
    pod: t.pod,
    uid: t.uid,
    ip: t.ip,
    cliPort: t.cliPort,
    servicePort: t.servicePort,
    role: t.role,
    ready: t.ready,
    hasLog: t.hasLog,
    restartCount: t.restartCount,
    startedAtMs: t.startedAt?.getTime(),
    aiExpected: t.aiExpected,
    quotes: t.quotes,
    liveExpected: t.liveExpected,
    cursor: undefined,
    restartsRead: undefined,
    reading: undefined,
    findings: NO_FINDINGS,
    dueAt: now,
    busy: false,
    abort: undefined,
    logError: undefined,
    failures: 0,
    changed: true,
    service: undefined,
    gone: false,
  };
}

/** The resource's log findings, made when the first comes. */
function logOf(patient: Patient): LogFindings {
  patient.log ??= new LogFindings();
  return patient.log;
}

/** The pod's latest target (same uid): its fields as the reconciler sees them now. */
function adopt(s: PodState, t: NodeTarget): void {
  s.pod = t.pod;
  s.uid = t.uid;
  s.ip = t.ip;
  s.cliPort = t.cliPort;
  s.servicePort = t.servicePort;
  s.role = t.role;
  s.ready = t.ready;
  s.hasLog = t.hasLog;
  s.restartCount = t.restartCount;
  s.startedAtMs = t.startedAt?.getTime();
  s.aiExpected = t.aiExpected;
  s.quotes = t.quotes;
  s.liveExpected = t.liveExpected;
}

/** The pod as a target, for one look (what the endpoint reader and its verdicts take). */
function targetOf(s: PodState): NodeTarget {
  return {
    pod: s.pod,
    uid: s.uid,
    ip: s.ip,
    cliPort: s.cliPort,
    servicePort: s.servicePort,
    role: s.role,
    ready: s.ready,
    hasLog: s.hasLog,
    restartCount: s.restartCount,
    // (startedAt: read by no reader; the log's clearing rules take it from the state.)
    aiExpected: s.aiExpected,
    ...(s.quotes !== undefined ? { quotes: s.quotes } : {}),
    ...(s.liveExpected !== undefined ? { liveExpected: s.liveExpected } : {}),
  };
}

/** Stops the pod's look in flight and closes its connection; a look that was waiting ends unstarted. */
function drop(s: PodState): void {
  s.gone = true;
  s.abort?.abort();
  s.service?.close();
  s.service = undefined;
}

/** The same array without spare capacity (one that grew by push keeps room for 16). */
function exactly<T>(items: T[]): T[] {
  const out = new Array<T>(items.length);
  for (let i = 0; i < items.length; i++) out[i] = items[i]!;
  return out;
}

/** A 32-bit FNV-1a hash of a text (what is kept of a message only compared, never shown). */
function textHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** What of a report the status shows (hashed: one is kept per resource): a change is worth a reconcile. */
function fingerprint(r: DoctorReport): number {
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
  return createHash("sha1").update(shown).digest().readUIntBE(0, 6);
}
