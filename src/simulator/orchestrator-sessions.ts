// The orchestrator's live sessions, one per stream a gateway sends it (keyed by the auth token's
// session id, as core.LivepeerNode.SegmentChans), counted against the current session limit: a new
// session beyond it is refused with OrchestratorCapped (core/orchestrator.go CheckCapacity). A
// session ends when the gateway ends it, or after transcodeLoopTimeout (70 s) without a segment.
import type { SimulatorState } from "./state.ts";

/** core/orchestrator.go transcodeLoopTimeout. */
export const TRANSCODE_LOOP_TIMEOUT_MS = 70_000;

export type Admission = "new" | "continuing" | "capped";

export class OrchestratorSessions {
  private readonly sessions = new Map<string, { manifestID: string; timer: NodeJS.Timeout }>();
  private readonly state: SimulatorState;
  private readonly timeoutMs: number;
  private readonly onEnd: (sessionId: string, manifestID: string, why: string) => void;

  constructor(
    state: SimulatorState,
    timeoutMs: number,
    onEnd: (sessionId: string, manifestID: string, why: string) => void,
  ) {
    this.state = state;
    this.timeoutMs = timeoutMs;
    this.onEnd = onEnd;
  }

  /** A segment of this session arrives: take it, or refuse it at the limit. */
  admit(sessionId: string, manifestID: string): Admission {
    const existing = this.sessions.get(sessionId);
    if (existing) {
      existing.timer.refresh();
      return "continuing";
    }
    if (this.state.currentSessions >= this.state.sessionLimit) return "capped";
    const timer = setTimeout(
      () => this.end(sessionId, "no segment within the transcode loop timeout"),
      this.timeoutMs,
    );
    timer.unref();
    this.sessions.set(sessionId, { manifestID, timer });
    this.state.liveSessions = this.sessions.size;
    return "new";
  }

  end(sessionId: string, why: string): boolean {
    const session = this.sessions.get(sessionId);
    if (!session) return false;
    clearTimeout(session.timer);
    this.sessions.delete(sessionId);
    this.state.liveSessions = this.sessions.size;
    this.onEnd(sessionId, session.manifestID, why);
    return true;
  }

  stop(): void {
    for (const s of this.sessions.values()) clearTimeout(s.timer);
    this.sessions.clear();
    this.state.liveSessions = 0;
  }
}
