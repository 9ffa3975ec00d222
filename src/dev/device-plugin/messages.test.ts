// Known bytes come from the kubelet's own generated Go code (k8s.io/kubelet v0.36.3,
// pkg/apis/deviceplugin/v1beta1, proto.MarshalOptions{Deterministic: true}): if these match,
// the kubelet reads what we write and we read what it writes.
import { describe, expect, it } from "vitest";
import {
  AllocateRequestCodec,
  AllocateResponseCodec,
  DevicePluginOptionsCodec,
  ListAndWatchResponseCodec,
  PreferredAllocationRequestCodec,
  PreferredAllocationResponseCodec,
  PreStartContainerRequestCodec,
  RegisterRequestCodec,
} from "./messages.ts";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const bytes = (h: string) => Buffer.from(h, "hex");

const GO = {
  RegisterRequest:
    "0a0776316265746131120f6e76696469612d6770752e736f636b1a0e6e76696469612e636f6d2f67707522021001",
  ListAndWatchResponse:
    "0a100a054750552d6112074865616c7468790a1a0a054750552d621209556e6865616c7468791a060a000a020801",
  AllocateRequest: "0a0e0a054750552d610a054750552d620a070a054750552d63",
  AllocateResponse:
    "0a650a250a164e56494449415f56495349424c455f44455649434553120b4750552d612c4750552d62120a0a022f6312022f6818011a140a062f6465762f7812062f6465762f791a02727722060a01611201622a120a106e76696469612e636f6d2f6770753d30",
  PreferredAllocationRequest: "0a1e0a054750552d610a054750552d620a054750552d6312054750552d621802",
  PreferredAllocationResponse: "0a0e0a054750552d620a054750552d61",
  PreStartContainerRequest: "0a054750552d61",
  DevicePluginOptions: "08011001",
};

describe("device-plugin v1beta1 codec", () => {
  it("encodes RegisterRequest exactly as the kubelet's Go code does", () => {
    const value = {
      version: "v1beta1",
      endpoint: "nvidia-gpu.sock",
      resourceName: "nvidia.com/gpu",
      options: { preStartRequired: false, getPreferredAllocationAvailable: true },
    };
    expect(hex(RegisterRequestCodec.encode(value))).toBe(GO.RegisterRequest);
    expect(RegisterRequestCodec.decode(bytes(GO.RegisterRequest))).toEqual(value);
  });

  it("encodes ListAndWatchResponse with health and NUMA topology (node 0 is an empty message)", () => {
    const value = {
      devices: [
        { id: "GPU-a", health: "Healthy" },
        { id: "GPU-b", health: "Unhealthy", numaNodes: [0, 1] },
      ],
    };
    expect(hex(ListAndWatchResponseCodec.encode(value))).toBe(GO.ListAndWatchResponse);
    expect(ListAndWatchResponseCodec.decode(bytes(GO.ListAndWatchResponse))).toEqual(value);
  });

  it("decodes the kubelet's AllocateRequest per container", () => {
    const value = { containerRequests: [{ deviceIds: ["GPU-a", "GPU-b"] }, { deviceIds: ["GPU-c"] }] };
    expect(AllocateRequestCodec.decode(bytes(GO.AllocateRequest))).toEqual(value);
    expect(hex(AllocateRequestCodec.encode(value))).toBe(GO.AllocateRequest);
  });

  it("encodes AllocateResponse with envs, mounts, devices, annotations and CDI devices", () => {
    const value = {
      containerResponses: [
        {
          envs: { NVIDIA_VISIBLE_DEVICES: "GPU-a,GPU-b" },
          mounts: [{ containerPath: "/c", hostPath: "/h", readOnly: true }],
          devices: [{ containerPath: "/dev/x", hostPath: "/dev/y", permissions: "rw" }],
          annotations: { a: "b" },
          cdiDevices: ["nvidia.com/gpu=0"],
        },
      ],
    };
    expect(hex(AllocateResponseCodec.encode(value))).toBe(GO.AllocateResponse);
    expect(AllocateResponseCodec.decode(bytes(GO.AllocateResponse))).toEqual(value);
  });

  it("round-trips the preferred-allocation messages", () => {
    const req = {
      containerRequests: [
        {
          availableDeviceIds: ["GPU-a", "GPU-b", "GPU-c"],
          mustIncludeDeviceIds: ["GPU-b"],
          allocationSize: 2,
        },
      ],
    };
    expect(PreferredAllocationRequestCodec.decode(bytes(GO.PreferredAllocationRequest))).toEqual(req);
    expect(hex(PreferredAllocationRequestCodec.encode(req))).toBe(GO.PreferredAllocationRequest);
    const res = { containerResponses: [{ deviceIds: ["GPU-b", "GPU-a"] }] };
    expect(hex(PreferredAllocationResponseCodec.encode(res))).toBe(GO.PreferredAllocationResponse);
    expect(PreferredAllocationResponseCodec.decode(bytes(GO.PreferredAllocationResponse))).toEqual(res);
  });

  it("handles PreStartContainerRequest and DevicePluginOptions", () => {
    expect(PreStartContainerRequestCodec.decode(bytes(GO.PreStartContainerRequest))).toEqual({
      deviceIds: ["GPU-a"],
    });
    const options = { preStartRequired: true, getPreferredAllocationAvailable: true };
    expect(hex(DevicePluginOptionsCodec.encode(options))).toBe(GO.DevicePluginOptions);
    expect(DevicePluginOptionsCodec.decode(bytes(GO.DevicePluginOptions))).toEqual(options);
  });

  it("skips unknown fields of every wire type, as a newer kubelet may send them", () => {
    // field 9 varint 150, field 10 fixed64, field 11 fixed32, then devices_ids "GPU-a"
    const withUnknown = Buffer.concat([
      bytes("489601"),
      bytes("51"),
      Buffer.alloc(8, 1),
      bytes("5d"),
      Buffer.alloc(4, 2),
      bytes(GO.PreStartContainerRequest),
    ]);
    expect(PreStartContainerRequestCodec.decode(withUnknown)).toEqual({ deviceIds: ["GPU-a"] });
  });

  it("rejects truncated input instead of reading past it", () => {
    expect(() => AllocateRequestCodec.decode(bytes(GO.AllocateRequest).subarray(0, 10))).toThrow(
      /past the message/,
    );
    expect(() => AllocateRequestCodec.decode(bytes("0a"))).toThrow(/truncated varint/);
  });
});
