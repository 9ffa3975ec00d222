// The upgrade scenario's delivery store on kind: a directory of the run's (removed with it), seen
// by every worker node at one path (an extraMount) and owned by the API's user, so the API's
// SQLite store outlives its pod as a hostPath volume. The PV pins it to the first worker, as a
// local volume is, so the API pod goes where the data is.
import { chmodSync, chownSync, mkdirSync } from "node:fs";
import path from "node:path";
import type { WorkerMount } from "./cluster-config.ts";

/** The chart's pods run as this user (deploy/helm/livepeer-operator/templates/_helpers.tpl). */
const API_UID = 65532;
/** Where the workers see it (the PV's hostPath). */
export const DELIVERY_STORE_IN_NODE = "/mnt/lpo-e2e/deliveries";

export function prepareDeliveryStore(work: string): WorkerMount {
  const hostPath = path.join(work, "deliveries");
  mkdirSync(hostPath);
  if (process.getuid?.() === 0) chownSync(hostPath, API_UID, API_UID);
  // Not root (the user's Docker): we cannot give it away, so anyone may write it.
  else chmodSync(hostPath, 0o777);
  return { hostPath, containerPath: DELIVERY_STORE_IN_NODE };
}
