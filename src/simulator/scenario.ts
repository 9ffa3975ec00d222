// A scenario: timed actions a simulator plays after it starts, from YAML or JSON, e.g.
//   steps:
//     - at: 2s
//       log: "E1121 10:00:01.000000       1 orchestrator.go:190] ... TicketParams expired"
//     - at: 5s
//       sessions: limit
//     - at: 10s
//       every: 30s
//       paymentCreateErrors: 1
import { existsSync, readFileSync } from "node:fs";
import { load } from "js-yaml";
import { z } from "zod";
import { type SimAction, SimActionSchema } from "./actions.ts";

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** "500ms", "2s", "1.5m", "1h" -> milliseconds; undefined when it is not such a duration. */
export function durationMs(text: string): number | undefined {
  const m = DURATION.exec(text);
  return m ? Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS] : undefined;
}

const duration = z
  .union([z.number().nonnegative(), z.string().regex(DURATION, "a duration such as 500ms, 2s, 1m")])
  .transform((v) => {
    if (typeof v === "number") return v;
    const [, amount, unit] = DURATION.exec(v)!;
    return Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  });

const TimingSchema = z.object({ at: duration.default(0), every: duration.optional() });

export interface ScenarioStep {
  /** Milliseconds after start. */
  at: number;
  /** Repeat every so many milliseconds after the first run. */
  every?: number;
  action: SimAction;
}

export type Scenario = ScenarioStep[];

export const ScenarioSchema = z
  .object({ steps: z.array(z.record(z.string(), z.unknown())) })
  .transform((s, ctx) =>
    s.steps.flatMap((raw, index): ScenarioStep[] => {
      const { at, every, ...action } = raw;
      const timing = TimingSchema.safeParse({ at, every });
      const parsed = SimActionSchema.safeParse(action);
      const issue = !timing.success
        ? timing.error.issues[0]
        : !parsed.success
          ? parsed.error.issues[0]
          : undefined;
      if (issue || !timing.success || !parsed.success) {
        ctx.addIssue({
          code: "custom",
          path: ["steps", index],
          message: `${issue?.path.length ? `${issue.path.join(".")}: ` : ""}${issue?.message ?? "invalid step"} (a step is at/every plus one of log, sessions, paymentCreateErrors, fail, clear, gpuMemoryUsed)`,
        });
        return [];
      }
      return [
        {
          at: timing.data.at,
          ...(timing.data.every === undefined ? {} : { every: timing.data.every }),
          action: parsed.data,
        },
      ];
    }),
  );

/** Scenario text (YAML or JSON) -> steps; errors name the step. */
export function parseScenario(text: string): Scenario {
  let doc: unknown;
  try {
    doc = load(text);
  } catch (err) {
    throw new Error(`scenario is not YAML or JSON: ${(err as Error).message.split("\n")[0]}`);
  }
  const parsed = ScenarioSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`scenario: ${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`);
  }
  return parsed.data;
}

/** A path to a scenario file, or the scenario itself (inline YAML/JSON, e.g. from an env variable). */
export function loadScenario(pathOrText: string): Scenario {
  if (/[\n{[]/.test(pathOrText) || /^\s*steps\s*:/.test(pathOrText)) return parseScenario(pathOrText);
  if (!existsSync(pathOrText)) throw new Error(`scenario file ${pathOrText} does not exist`);
  return parseScenario(readFileSync(pathOrText, "utf8"));
}

/** Plays the steps; returns a function that cancels what has not run yet. */
export function playScenario(scenario: Scenario, run: (action: SimAction) => void): () => void {
  const timers: NodeJS.Timeout[] = [];
  for (const step of scenario) {
    timers.push(
      setTimeout(() => {
        run(step.action);
        if (step.every && step.every > 0) timers.push(setInterval(() => run(step.action), step.every));
      }, step.at),
    );
  }
  return () => {
    for (const t of timers) clearTimeout(t);
  };
}
