// The shape of Kubernetes objects as the runtime handles them: plain JSON from the API server
// (timestamps stay strings), typed just enough for keys, owners and status.

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: T[];
}

/** What a reconciler is given: `namespace/name`, or `name` for cluster-scoped objects. */
export type ObjectKey = string;

export function keyOf(obj: { metadata?: ObjectMeta }): ObjectKey {
  const name = obj.metadata?.name ?? "";
  const ns = obj.metadata?.namespace;
  return ns ? `${ns}/${name}` : name;
}

export function keyFor(namespace: string | undefined, name: string): ObjectKey {
  return namespace ? `${namespace}/${name}` : name;
}

export function splitKey(key: ObjectKey): { namespace: string | undefined; name: string } {
  const slash = key.indexOf("/");
  return slash < 0
    ? { namespace: undefined, name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** The ownerReference with `controller: true`, if any: the one object that manages this one. */
export function controllerOf(obj: { metadata?: ObjectMeta }): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** An ownerReference that makes `owner` the managing controller of a child (GC deletes the child with it). */
export function controllerReference(owner: KubeObject): OwnerReference {
  const m = owner.metadata;
  if (!owner.apiVersion || !owner.kind || !m?.name || !m.uid) {
    throw new Error(
      `cannot own a child from ${owner.kind ?? "an object"} ${m?.name ?? "(unnamed)"}: it needs apiVersion, kind, metadata.name and metadata.uid (read it from the API or the cache, not from a manifest)`,
    );
  }
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: m.name,
    uid: m.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The API group of `apiVersion` ("" for the core group). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/** The object as a reconciler reads it, minus what every write changes (version, field owners). */
function content(obj: KubeObject, withStatus: boolean): string {
  const { resourceVersion: _v, managedFields: _f, ...meta } = obj.metadata ?? {};
  const { status, ...rest } = obj as KubeObject & { status?: unknown };
  return JSON.stringify({ ...rest, metadata: meta, ...(withStatus ? { status } : {}) });
}

/**
 * Whether an update changed anything a reconciler reads. A cached object reduced to facts (a
 * Node to its labels and addresses) gets a new resourceVersion on every heartbeat of the full
 * object; waking every owner of it for that would be work for nothing.
 */
export function changedBeyondVersion(old: KubeObject, next: KubeObject): boolean {
  return content(old, true) !== content(next, true);
}

/** Whether an update changed more than the status (a primary's own status write is not news). */
export function changedBeyondStatus(old: KubeObject, next: KubeObject): boolean {
  return content(old, false) !== content(next, false);
}
