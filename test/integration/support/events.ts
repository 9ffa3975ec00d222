// The Events (events.k8s.io) about one object in a namespace, as `kubectl events --for` lists them.
import { Events, type KubeClient, type KubeObject } from "../../../src/kube/index.ts";

export interface EventAbout {
  /** Normal or Warning. */
  type?: string;
  reason?: string;
  note?: string;
}

export async function eventsAbout(
  client: KubeClient,
  namespace: string,
  regarding: string,
): Promise<EventAbout[]> {
  const list = await client.list<KubeObject & EventAbout & { regarding?: { name?: string } }>(Events, {
    namespace,
  });
  return list.items.filter((e) => e.regarding?.name === regarding);
}
