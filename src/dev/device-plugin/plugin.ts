// A fake NVIDIA device plugin: it speaks the kubelet device-plugin API v1beta1 the way NVIDIA's
// k8s-device-plugin does (advertises `nvidia.com/gpu` devices named GPU-<uuid>, answers
// Allocate with NVIDIA_VISIBLE_DEVICES), so the kubelet's own device manager assigns GPUs to
// real pods on a machine without GPUs. Like the real plugin, it registers again when the
// kubelet restarts (the kubelet wipes the plugin sockets and recreates kubelet.sock).
import { existsSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { type GrpcServer, grpcUnary, serveGrpc } from "./grpc.ts";
import {
  AllocateRequestCodec,
  AllocateResponseCodec,
  API_VERSION,
  type ContainerPreferredAllocationRequest,
  DevicePluginOptionsCodec,
  Empty,
  HEALTHY,
  ListAndWatchResponseCodec,
  PreferredAllocationRequestCodec,
  PreferredAllocationResponseCodec,
  PreStartContainerRequestCodec,
  RegisterRequestCodec,
} from "./messages.ts";
import { allocationEnv, preferredAllocation } from "./policy.ts";

export const KUBELET_SOCKET = "kubelet.sock";

export interface FakeGpuPluginOptions {
  /** The kubelet's device-plugins directory (`<kubelet root>/device-plugins`). */
  pluginDir: string;
  deviceIds: string[];
  resourceName?: string;
  /** Socket file name inside pluginDir. */
  socketName?: string;
  /** How often to look for a restarted kubelet (ms). */
  pollMs?: number;
  log?: (line: string) => void;
}

export interface FakeGpuPlugin {
  resourceName: string;
  deviceIds: string[];
  /** Successful registrations with the kubelet so far (1 + re-registrations). */
  registrations(): number;
  /** Device ids of every container Allocate answered, in order. */
  allocations(): string[][];
  stop(): Promise<void>;
}

const SERVICE = `/${API_VERSION}.DevicePlugin`;

export async function startFakeGpuPlugin(opts: FakeGpuPluginOptions): Promise<FakeGpuPlugin> {
  const resourceName = opts.resourceName ?? "nvidia.com/gpu";
  const socketName = opts.socketName ?? "nvidia-gpu.sock";
  const socketPath = path.join(opts.pluginDir, socketName);
  const kubeletSocket = path.join(opts.pluginDir, KUBELET_SOCKET);
  const log = opts.log ?? (() => undefined);
  const known = new Set(opts.deviceIds);
  const allocations: string[][] = [];
  const streams = new Set<AbortController>();
  let registrations = 0;
  let stopped = false;

  const listResponse = ListAndWatchResponseCodec.encode({
    devices: opts.deviceIds.map((id) => ({ id, health: HEALTHY })),
  });
  const handlers = {
    [`${SERVICE}/GetDevicePluginOptions`]: {
      kind: "unary" as const,
      handle: () =>
        DevicePluginOptionsCodec.encode({ preStartRequired: false, getPreferredAllocationAvailable: true }),
    },
    [`${SERVICE}/ListAndWatch`]: {
      kind: "stream" as const,
      // The device list never changes: send it once and hold the stream open, as the kubelet expects.
      async handle(_req: Buffer, send: (m: Buffer) => void, signal: AbortSignal) {
        const mine = new AbortController();
        streams.add(mine);
        send(listResponse);
        await new Promise<void>((resolve) => {
          if (signal.aborted || mine.signal.aborted) return resolve();
          signal.addEventListener("abort", () => resolve(), { once: true });
          mine.signal.addEventListener("abort", () => resolve(), { once: true });
        });
        streams.delete(mine);
      },
    },
    [`${SERVICE}/GetPreferredAllocation`]: {
      kind: "unary" as const,
      handle(req: Buffer) {
        const { containerRequests } = PreferredAllocationRequestCodec.decode(req);
        return PreferredAllocationResponseCodec.encode({
          containerResponses: containerRequests.map((c: ContainerPreferredAllocationRequest) => ({
            deviceIds: preferredAllocation(c),
          })),
        });
      },
    },
    [`${SERVICE}/Allocate`]: {
      kind: "unary" as const,
      handle(req: Buffer) {
        const { containerRequests } = AllocateRequestCodec.decode(req);
        const unknown = containerRequests.flatMap((c) => c.deviceIds).filter((id) => !known.has(id));
        if (unknown.length > 0) throw new Error(`unknown device ids: ${unknown.join(", ")}`);
        for (const c of containerRequests) {
          allocations.push(c.deviceIds);
          log(`[device-plugin] allocated ${c.deviceIds.join(",")}`);
        }
        return AllocateResponseCodec.encode({
          containerResponses: containerRequests.map((c) => ({ envs: allocationEnv(c.deviceIds) })),
        });
      },
    },
    [`${SERVICE}/PreStartContainer`]: {
      kind: "unary" as const,
      handle(req: Buffer) {
        PreStartContainerRequestCodec.decode(req);
        return Empty.encode({});
      },
    },
  };

  let server: GrpcServer | undefined;
  // Identity of the kubelet.sock we registered with: inode numbers alone are reused.
  let registeredWith: string | undefined;
  const kubeletIdentity = () => {
    const st = statSync(kubeletSocket);
    return `${st.ino}:${st.ctimeMs}`;
  };

  const serve = async () => {
    for (const s of streams) s.abort();
    await server?.close();
    rmSync(socketPath, { force: true });
    server = await serveGrpc(socketPath, handlers);
  };

  const register = async (): Promise<void> => {
    const identity = kubeletIdentity();
    await grpcUnary(
      kubeletSocket,
      `/${API_VERSION}.Registration/Register`,
      RegisterRequestCodec.encode({
        version: API_VERSION,
        endpoint: socketName,
        resourceName,
        options: { preStartRequired: false, getPreferredAllocationAvailable: true },
      }),
    );
    registeredWith = identity;
    registrations++;
    log(`[device-plugin] registered ${resourceName} (${opts.deviceIds.length} devices) with the kubelet`);
  };

  // One loop keeps us registered: it (re)serves when our socket is gone (the kubelet wipes the
  // directory when it starts) and registers whenever kubelet.sock is new.
  let lastError = "";
  const reconcile = async () => {
    if (!existsSync(socketPath) || !server) {
      await serve();
      registeredWith = undefined; // a kubelet that lost our socket has forgotten us too
    }
    if (!existsSync(kubeletSocket)) return;
    if (kubeletIdentity() === registeredWith) return;
    try {
      await register();
      lastError = "";
    } catch (err) {
      const message = (err as Error).message;
      if (message !== lastError) log(`[device-plugin] registration failed, retrying: ${message}`);
      lastError = message;
    }
  };

  await serve();
  let loop: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    loop = loop.then(reconcile).catch((err) => log(`[device-plugin] ${(err as Error).message}`));
  }, opts.pollMs ?? 500);
  timer.unref();
  loop = loop.then(reconcile);

  return {
    resourceName,
    deviceIds: [...opts.deviceIds],
    registrations: () => registrations,
    allocations: () => allocations.map((a) => [...a]),
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      await loop.catch(() => undefined);
      for (const s of streams) s.abort();
      await server?.close();
      rmSync(socketPath, { force: true });
    },
  };
}
