// A node role (orchestrator, transcoder, gateway) as data for the one node-pod builder: the ports
// it listens on and which of them a Service may publish, its flags, the GPUs it can use, the
// Secrets it mounts and the port its probes read. A new role is a new value of this type, not a
// copy of another role's code.
import type { FlagValues } from "../../node/config/index.ts";
import type { LiveSetting } from "../live/settings.ts";
import type { SecretMount } from "./mounts.ts";

export interface RolePort {
  name: string;
  containerPort: number;
  /**
   * Which Service may carry the port: `public` (the Service whose type the spec chooses),
   * `cluster` (a ClusterIP Service beside it: the CLI port can change a running node and is never
   * public) or `none` (in no Service).
   */
  publish: "public" | "cluster" | "none";
}

/** Where the builder placed the pod, for the role's flags. */
export interface NodePlacement {
  /** `-nvidia` value: the GPUs the pod is given, numbered from 0 (absent: no GPU). */
  nvidiaDevices?: string;
}

/** What the config hash is computed over (see NodePodRole.configInputs). */
export interface RenderedNode {
  /** The config file as mounted. */
  config: string;
  /** The config file without the role's live flags (and without the header). */
  restartConfig: string;
  /** Files mounted beside the config file, by name. */
  files: Readonly<Record<string, string>>;
}

export interface NodePodRole<Facts> {
  /** `app.kubernetes.io/component` of the role's children and pods. */
  component: string;
  ports: readonly RolePort[];
  /** Name of the port whose `/status` answers once the node has started: the probes read it. */
  statusPort: string;
  /**
   * GPUs the role can use, when the spec asks for some: `video-encoder` ones for transcoding
   * (never a card without a hardware encoder), `any` GPU, or `none` (a GPU request is ignored).
   */
  gpu: "video-encoder" | "any" | "none";
  /** Secrets the pod mounts, each when the input names one. */
  secrets: readonly SecretMount[];
  flags(facts: Facts, pod: NodePlacement): FlagValues;
  /**
   * Settings changed on the running node (never by a restart): recorded on the ConfigMap, and
   * their flags left out of the pod template's hash.
   */
  live: readonly LiveSetting[];
  /** The config file's comment line; `owner` is `<namespace>/<name>` of the resource. */
  configHeader(owner: string): string;
  /**
   * What of the ConfigMap the config hash covers: a change restarts the node in place (its pod,
   * node and GPUs kept; see node-pod/in-place.ts). The image, command line and Secret-mounted
   * files are in the pod template: a change there is a new pod.
   */
  configInputs(node: RenderedNode): readonly string[];
}
