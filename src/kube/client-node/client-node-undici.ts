// What @kubernetes/client-node's KubeConfig and its fetch library take from the npm undici, loaded
// on first use (see slim-client-node.ts). The operator's KubeClient never asks KubeConfig for an
// undici dispatcher nor fetches through client-node, so in the controller undici (30 MB of RSS)
// never loads; anything else that does gets the real thing, from the undici client-node resolves.
import { requireFromClientNode } from "./require-from-client-node.ts";

type Undici = typeof import("undici");
let undici: Undici | undefined;
function load(): Undici {
  undici ??= requireFromClientNode<Undici>("undici");
  return undici;
}

export class Agent {
  constructor(...args: unknown[]) {
    // biome-ignore lint/correctness/noConstructorReturn: stands in for the real class, built on first use
    return Reflect.construct(load().Agent, args);
  }
}

export class ProxyAgent {
  constructor(...args: unknown[]) {
    // biome-ignore lint/correctness/noConstructorReturn: stands in for the real class, built on first use
    return Reflect.construct(load().ProxyAgent, args);
  }
}

export function fetch(...args: Parameters<Undici["fetch"]>): ReturnType<Undici["fetch"]> {
  return load().fetch(...args);
}
