// GET /health of an AI runner (the ai-runner's API, port 8000): {"status": "OK" | "IDLE" |
// "LOADING" | "ERROR"}. OK and IDLE serve; LOADING is a cold start (the model is loading); older
// runners answer only once loaded.
import { z } from "zod";
import { getJson, type RequestOptions } from "./http.ts";

const RunnerHealthSchema = z.object({ status: z.string() }).loose();

export type RunnerHealth = "OK" | "IDLE" | "LOADING" | "ERROR" | (string & {});

export async function readRunnerHealth(baseUrl: string, options: RequestOptions = {}): Promise<RunnerHealth> {
  const body = await getJson(baseUrl, "/health", RunnerHealthSchema, options);
  return body.status.toUpperCase();
}

/** Whether a runner answering this takes requests. */
export const runnerServes = (health: RunnerHealth | undefined) => health === "OK" || health === "IDLE";
