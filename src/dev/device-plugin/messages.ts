// The kubelet device-plugin API v1beta1 messages (k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1/
// api.proto), encoded and decoded by hand: field numbers below are the .proto's. Both
// directions exist for every message so tests can play the kubelet's side.
import {
  boolOf,
  messagesOf,
  ProtoWriter,
  readFields,
  stringMapOf,
  stringOf,
  stringsOf,
  varintOf,
} from "./protowire.ts";

export const API_VERSION = "v1beta1";
export const HEALTHY = "Healthy";
export const UNHEALTHY = "Unhealthy";

export interface DevicePluginOptions {
  preStartRequired: boolean;
  getPreferredAllocationAvailable: boolean;
}

export interface RegisterRequest {
  version: string;
  /** The plugin's socket file name, relative to the kubelet's device-plugins directory. */
  endpoint: string;
  resourceName: string;
  options?: DevicePluginOptions;
}

export interface Device {
  id: string;
  health: string;
  /** NUMA node ids. */
  numaNodes?: number[];
}

export interface ContainerPreferredAllocationRequest {
  availableDeviceIds: string[];
  mustIncludeDeviceIds: string[];
  allocationSize: number;
}

export interface ContainerAllocateResponse {
  envs?: Record<string, string>;
  mounts?: { containerPath: string; hostPath: string; readOnly: boolean }[];
  devices?: { containerPath: string; hostPath: string; permissions: string }[];
  annotations?: Record<string, string>;
  cdiDevices?: string[];
}

export interface Codec<T> {
  encode(value: T): Buffer;
  decode(bytes: Uint8Array): T;
}

export const Empty: Codec<Record<string, never>> = {
  encode: () => Buffer.alloc(0),
  decode: () => ({}),
};

export const DevicePluginOptionsCodec: Codec<DevicePluginOptions> = {
  encode: (o) =>
    new ProtoWriter().bool(1, o.preStartRequired).bool(2, o.getPreferredAllocationAvailable).finish(),
  decode(bytes) {
    const f = readFields(bytes);
    return { preStartRequired: boolOf(f, 1), getPreferredAllocationAvailable: boolOf(f, 2) };
  },
};

export const RegisterRequestCodec: Codec<RegisterRequest> = {
  encode: (r) =>
    new ProtoWriter()
      .string(1, r.version)
      .string(2, r.endpoint)
      .string(3, r.resourceName)
      .message(4, r.options && DevicePluginOptionsCodec.encode(r.options))
      .finish(),
  decode(bytes) {
    const f = readFields(bytes);
    const options = messagesOf(f, 4).at(-1);
    return {
      version: stringOf(f, 1),
      endpoint: stringOf(f, 2),
      resourceName: stringOf(f, 3),
      ...(options ? { options: DevicePluginOptionsCodec.decode(options) } : {}),
    };
  },
};

function encodeDevice(d: Device): Buffer {
  const topology = d.numaNodes?.length
    ? d.numaNodes
        .reduce((w, id) => w.message(1, new ProtoWriter().int(1, id).finish()), new ProtoWriter())
        .finish()
    : undefined;
  return new ProtoWriter().string(1, d.id).string(2, d.health).message(3, topology).finish();
}

function decodeDevice(bytes: Uint8Array): Device {
  const f = readFields(bytes);
  const topology = messagesOf(f, 3).at(-1);
  const numaNodes = topology
    ? messagesOf(readFields(topology), 1).map((n) => Number(varintOf(readFields(n), 1)))
    : undefined;
  return { id: stringOf(f, 1), health: stringOf(f, 2), ...(numaNodes ? { numaNodes } : {}) };
}

export const ListAndWatchResponseCodec: Codec<{ devices: Device[] }> = {
  encode: (r) => r.devices.reduce((w, d) => w.message(1, encodeDevice(d)), new ProtoWriter()).finish(),
  decode: (bytes) => ({ devices: messagesOf(readFields(bytes), 1).map(decodeDevice) }),
};

export const PreferredAllocationRequestCodec: Codec<{
  containerRequests: ContainerPreferredAllocationRequest[];
}> = {
  encode: (r) =>
    r.containerRequests
      .reduce(
        (w, c) =>
          w.message(
            1,
            new ProtoWriter()
              .strings(1, c.availableDeviceIds)
              .strings(2, c.mustIncludeDeviceIds)
              .int(3, c.allocationSize)
              .finish(),
          ),
        new ProtoWriter(),
      )
      .finish(),
  decode: (bytes) => ({
    containerRequests: messagesOf(readFields(bytes), 1).map((m) => {
      const f = readFields(m);
      return {
        availableDeviceIds: stringsOf(f, 1),
        mustIncludeDeviceIds: stringsOf(f, 2),
        allocationSize: Number(BigInt.asIntN(32, varintOf(f, 3))),
      };
    }),
  }),
};

export const PreferredAllocationResponseCodec: Codec<{ containerResponses: { deviceIds: string[] }[] }> = {
  encode: (r) =>
    r.containerResponses
      .reduce((w, c) => w.message(1, new ProtoWriter().strings(1, c.deviceIds).finish()), new ProtoWriter())
      .finish(),
  decode: (bytes) => ({
    containerResponses: messagesOf(readFields(bytes), 1).map((m) => ({
      deviceIds: stringsOf(readFields(m), 1),
    })),
  }),
};

export const AllocateRequestCodec: Codec<{ containerRequests: { deviceIds: string[] }[] }> = {
  encode: (r) =>
    r.containerRequests
      .reduce((w, c) => w.message(1, new ProtoWriter().strings(1, c.deviceIds).finish()), new ProtoWriter())
      .finish(),
  decode: (bytes) => ({
    containerRequests: messagesOf(readFields(bytes), 1).map((m) => ({
      deviceIds: stringsOf(readFields(m), 1),
    })),
  }),
};

function encodeContainerAllocateResponse(c: ContainerAllocateResponse): Buffer {
  const w = new ProtoWriter().stringMap(1, c.envs);
  for (const m of c.mounts ?? []) {
    w.message(
      2,
      new ProtoWriter().string(1, m.containerPath).string(2, m.hostPath).bool(3, m.readOnly).finish(),
    );
  }
  for (const d of c.devices ?? []) {
    w.message(
      3,
      new ProtoWriter().string(1, d.containerPath).string(2, d.hostPath).string(3, d.permissions).finish(),
    );
  }
  w.stringMap(4, c.annotations);
  for (const name of c.cdiDevices ?? []) w.message(5, new ProtoWriter().string(1, name).finish());
  return w.finish();
}

function decodeContainerAllocateResponse(bytes: Uint8Array): ContainerAllocateResponse {
  const f = readFields(bytes);
  return {
    envs: stringMapOf(f, 1),
    mounts: messagesOf(f, 2).map((m) => {
      const g = readFields(m);
      return { containerPath: stringOf(g, 1), hostPath: stringOf(g, 2), readOnly: boolOf(g, 3) };
    }),
    devices: messagesOf(f, 3).map((m) => {
      const g = readFields(m);
      return { containerPath: stringOf(g, 1), hostPath: stringOf(g, 2), permissions: stringOf(g, 3) };
    }),
    annotations: stringMapOf(f, 4),
    cdiDevices: messagesOf(f, 5).map((m) => stringOf(readFields(m), 1)),
  };
}

export const AllocateResponseCodec: Codec<{ containerResponses: ContainerAllocateResponse[] }> = {
  encode: (r) =>
    r.containerResponses
      .reduce((w, c) => w.message(1, encodeContainerAllocateResponse(c)), new ProtoWriter())
      .finish(),
  decode: (bytes) => ({
    containerResponses: messagesOf(readFields(bytes), 1).map(decodeContainerAllocateResponse),
  }),
};

export const PreStartContainerRequestCodec: Codec<{ deviceIds: string[] }> = {
  encode: (r) => new ProtoWriter().strings(1, r.deviceIds).finish(),
  decode: (bytes) => ({ deviceIds: stringsOf(readFields(bytes), 1) }),
};
