// The plugin against a stand-in kubelet over real unix sockets: the test plays the kubelet's
// side of the device-plugin API (its Registration service, then the calls its device manager
// makes), including a kubelet restart that wipes the sockets.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GrpcError, type GrpcServer, grpcCall, grpcUnary, serveGrpc } from "./grpc.ts";
import {
  AllocateRequestCodec,
  AllocateResponseCodec,
  DevicePluginOptionsCodec,
  Empty,
  ListAndWatchResponseCodec,
  PreferredAllocationRequestCodec,
  PreferredAllocationResponseCodec,
  type RegisterRequest,
  RegisterRequestCodec,
} from "./messages.ts";
import { type FakeGpuPlugin, startFakeGpuPlugin } from "./plugin.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The kubelet's registration server: records what plugins register. */
async function fakeKubelet(dir: string): Promise<{ requests: RegisterRequest[]; server: GrpcServer }> {
  const requests: RegisterRequest[] = [];
  const server = await serveGrpc(path.join(dir, "kubelet.sock"), {
    "/v1beta1.Registration/Register": {
      kind: "unary",
      handle(req) {
        requests.push(RegisterRequestCodec.decode(req));
        return Empty.encode({});
      },
    },
  });
  return { requests, server };
}

async function setup(): Promise<{
  dir: string;
  plugin: FakeGpuPlugin;
  kubelet: Awaited<ReturnType<typeof fakeKubelet>>;
}> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "lpo-dp-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const kubelet = await fakeKubelet(dir);
  cleanups.push(() => kubelet.server.close());
  const plugin = await startFakeGpuPlugin({ pluginDir: dir, deviceIds: ["GPU-1", "GPU-2"], pollMs: 50 });
  cleanups.push(() => plugin.stop());
  await until(() => kubelet.requests.length === 1 && plugin.registrations() === 1, "the plugin to register");
  return { dir, plugin, kubelet };
}

describe("fake NVIDIA device plugin", () => {
  it("registers nvidia.com/gpu with its socket name and API version", async () => {
    const { kubelet, plugin } = await setup();
    expect(kubelet.requests[0]).toEqual({
      version: "v1beta1",
      endpoint: "nvidia-gpu.sock",
      resourceName: "nvidia.com/gpu",
      options: { preStartRequired: false, getPreferredAllocationAvailable: true },
    });
    expect(plugin.registrations()).toBe(1);
  });

  it("streams its healthy devices on ListAndWatch and keeps the stream open", async () => {
    const { dir } = await setup();
    const lists: string[][] = [];
    const call = grpcCall(
      path.join(dir, "nvidia-gpu.sock"),
      "/v1beta1.DevicePlugin/ListAndWatch",
      Empty.encode({}),
      (m) => lists.push(ListAndWatchResponseCodec.decode(m).devices.map((d) => `${d.id}:${d.health}`)),
    );
    await until(() => lists.length === 1, "the device list");
    expect(lists[0]).toEqual(["GPU-1:Healthy", "GPU-2:Healthy"]);
    let ended = false;
    void call.done.catch(() => undefined).then(() => (ended = true));
    // A sentinel: two later calls answered by the same plugin (a second watcher's list and a unary
    // call) while the first stream is still open. A stream ended with its list would have ended
    // before them.
    const later: string[][] = [];
    const second = grpcCall(
      path.join(dir, "nvidia-gpu.sock"),
      "/v1beta1.DevicePlugin/ListAndWatch",
      Empty.encode({}),
      (m) => later.push(ListAndWatchResponseCodec.decode(m).devices.map((d) => d.id)),
    );
    await until(() => later.length === 1, "a second watcher's list");
    await grpcUnary(
      path.join(dir, "nvidia-gpu.sock"),
      "/v1beta1.DevicePlugin/GetDevicePluginOptions",
      Empty.encode({}),
    );
    expect(ended).toBe(false);
    second.cancel();
    call.cancel();
    await until(() => ended, "the stream to end after cancel");
  });

  it("answers Allocate with NVIDIA_VISIBLE_DEVICES per container and refuses unknown devices", async () => {
    const { dir, plugin } = await setup();
    const sock = path.join(dir, "nvidia-gpu.sock");
    const res = AllocateResponseCodec.decode(
      await grpcUnary(
        sock,
        "/v1beta1.DevicePlugin/Allocate",
        AllocateRequestCodec.encode({
          containerRequests: [{ deviceIds: ["GPU-2"] }, { deviceIds: ["GPU-1", "GPU-2"] }],
        }),
      ),
    );
    expect(res.containerResponses.map((c) => c.envs)).toEqual([
      { NVIDIA_VISIBLE_DEVICES: "GPU-2" },
      { NVIDIA_VISIBLE_DEVICES: "GPU-1,GPU-2" },
    ]);
    expect(plugin.allocations()).toEqual([["GPU-2"], ["GPU-1", "GPU-2"]]);
    const refused = await grpcUnary(
      sock,
      "/v1beta1.DevicePlugin/Allocate",
      AllocateRequestCodec.encode({ containerRequests: [{ deviceIds: ["GPU-9"] }] }),
    ).catch((e: GrpcError) => e);
    expect(refused).toBeInstanceOf(GrpcError);
    expect((refused as GrpcError).message).toMatch(/unknown device ids: GPU-9/);
  });

  it("answers options, preferred allocation, and UNIMPLEMENTED for unknown methods", async () => {
    const { dir } = await setup();
    const sock = path.join(dir, "nvidia-gpu.sock");
    expect(
      DevicePluginOptionsCodec.decode(
        await grpcUnary(sock, "/v1beta1.DevicePlugin/GetDevicePluginOptions", Buffer.alloc(0)),
      ),
    ).toEqual({ preStartRequired: false, getPreferredAllocationAvailable: true });
    const preferred = PreferredAllocationResponseCodec.decode(
      await grpcUnary(
        sock,
        "/v1beta1.DevicePlugin/GetPreferredAllocation",
        PreferredAllocationRequestCodec.encode({
          containerRequests: [
            { availableDeviceIds: ["GPU-1", "GPU-2"], mustIncludeDeviceIds: ["GPU-2"], allocationSize: 1 },
          ],
        }),
      ),
    );
    expect(preferred.containerResponses).toEqual([{ deviceIds: ["GPU-2"] }]);
    const err = await grpcUnary(sock, "/v1beta1.DevicePlugin/Nope", Buffer.alloc(0)).catch(
      (e: GrpcError) => e,
    );
    expect((err as GrpcError).code).toBe(12);
  });

  it("registers again when the kubelet restarts and wipes the plugin sockets", async () => {
    const { dir, kubelet, plugin } = await setup();
    await kubelet.server.close();
    rmSync(path.join(dir, "kubelet.sock"), { force: true });
    rmSync(path.join(dir, "nvidia-gpu.sock"), { force: true }); // what the kubelet does on start
    const restarted = await fakeKubelet(dir);
    cleanups.push(() => restarted.server.close());
    // The kubelet sees the request before the plugin has the answer: wait for both.
    await until(
      () => restarted.requests.length === 1 && plugin.registrations() === 2,
      "re-registration with the new kubelet",
    );
    const res = AllocateResponseCodec.decode(
      await grpcUnary(
        path.join(dir, "nvidia-gpu.sock"),
        "/v1beta1.DevicePlugin/Allocate",
        AllocateRequestCodec.encode({ containerRequests: [{ deviceIds: ["GPU-1"] }] }),
      ),
    );
    expect(res.containerResponses[0]?.envs).toEqual({ NVIDIA_VISIBLE_DEVICES: "GPU-1" });
  });
});
