// Names and condition reading shared by the scenarios.
export const ORCH = "e2e-orch";
/** The label the Gateway selects the Orchestrator by. */
export const POOL = { "livepeer.org/pool": "e2e" };

type Condition = { type: string; status: string; reason?: string; message?: string };
export type Resource = { status?: { node?: string; conditions?: Condition[] } & Record<string, unknown> };
export const condition = (r: Resource | undefined, type: string) =>
  r?.status?.conditions?.find((c) => c.type === type);
