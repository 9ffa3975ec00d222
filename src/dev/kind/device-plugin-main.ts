// `node device-plugin-main.js --gpus=N --plugin-dir=DIR`: the fake NVIDIA device plugin as a
// DaemonSet's container (see device-plugin-daemonset.ts). GPU ids are derived from the node's
// name, so a restarted plugin advertises the same devices.
import { parseArgs } from "node:util";
import { startFakeGpuPlugin } from "../device-plugin/plugin.ts";
import { fakeGpuIds } from "../device-plugin/policy.ts";

const { values } = parseArgs({
  options: { gpus: { type: "string", default: "2" }, "plugin-dir": { type: "string" } },
});
const gpus = Number(values.gpus);
const pluginDir = values["plugin-dir"];
const nodeName = process.env.NODE_NAME;
if (!Number.isInteger(gpus) || gpus < 1 || !pluginDir || !nodeName) {
  process.stderr.write(
    "usage: device-plugin-main --gpus=<1 or more> --plugin-dir=<the kubelet's device-plugins dir>, with NODE_NAME set (the pod's spec.nodeName)\n",
  );
  process.exit(2);
}
const log = (line: string) => process.stdout.write(`${line}\n`);
const plugin = await startFakeGpuPlugin({ pluginDir, deviceIds: fakeGpuIds(nodeName, gpus), log });
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => void plugin.stop().finally(() => process.exit(0)));
}
