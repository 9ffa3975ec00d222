// The delivery timeout, retry schedule and retention from command-line values (durations like
// 10s, 30m, 24h, 7d); absent values keep the engine's defaults. The schedule is checked as a
// whole (scheduleProblem) so a contradiction names both flags' meaning.
import {
  DEFAULT_RETENTION,
  DEFAULT_RETRY_SCHEDULE,
  type Retention,
  type RetrySchedule,
  scheduleProblem,
} from "../delivery/index.ts";
import { parseDurationSeconds, parseNonNegativeInt } from "./parse.ts";

export interface DeliveryTuningFlags {
  timeout?: string | undefined;
  retryFirst?: string | undefined;
  retryMax?: string | undefined;
  retryFor?: string | undefined;
  logMaxAge?: string | undefined;
  logMaxPerWebhook?: string | undefined;
  eventsMaxAge?: string | undefined;
}

export interface DeliveryTuning {
  timeoutMs?: number;
  schedule: RetrySchedule;
  retention: Retention;
}

const ms = (value: string | undefined, flag: string, fallback: number): number =>
  value === undefined ? fallback : parseDurationSeconds(value, flag) * 1000;

export function parseDeliveryTuning(f: DeliveryTuningFlags): DeliveryTuning {
  const schedule: RetrySchedule = {
    ...DEFAULT_RETRY_SCHEDULE,
    firstDelayMs: ms(f.retryFirst, "--delivery-retry-first", DEFAULT_RETRY_SCHEDULE.firstDelayMs),
    maxDelayMs: ms(f.retryMax, "--delivery-retry-max", DEFAULT_RETRY_SCHEDULE.maxDelayMs),
    giveUpAfterMs: ms(f.retryFor, "--delivery-retry-for", DEFAULT_RETRY_SCHEDULE.giveUpAfterMs),
  };
  const problem = scheduleProblem(schedule);
  if (problem) {
    throw new Error(`--delivery-retry-first/--delivery-retry-max/--delivery-retry-for: ${problem}`);
  }
  const retention: Retention = {
    logMaxAgeMs: ms(f.logMaxAge, "--delivery-log-max-age", DEFAULT_RETENTION.logMaxAgeMs),
    logMaxPerWebhook:
      f.logMaxPerWebhook === undefined
        ? DEFAULT_RETENTION.logMaxPerWebhook
        : parseNonNegativeInt(f.logMaxPerWebhook, "--delivery-log-max-per-webhook"),
    settledMaxAgeMs: ms(f.eventsMaxAge, "--delivery-events-max-age", DEFAULT_RETENTION.settledMaxAgeMs),
  };
  const out: DeliveryTuning = { schedule, retention };
  if (f.timeout !== undefined) out.timeoutMs = ms(f.timeout, "--delivery-timeout", 0);
  return out;
}
