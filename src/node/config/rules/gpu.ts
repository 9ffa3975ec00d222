// GPU selection: -nvidia is `all` or a comma list of device ids (the node splits on commas and
// hands each id to the driver, so a typo surfaces only at the startup encode test).
import { type FlagRule, problem } from "../problem.ts";
import { flagText } from "../read.ts";

export const nvidiaDevices: FlagRule = ({ values }) => {
  const nvidia = flagText(values, "nvidia");
  const out = [];
  if (nvidia !== undefined && nvidia !== "" && nvidia !== "all") {
    const ids = nvidia.split(",");
    if (!ids.every((id) => /^\d+$/.test(id))) {
      out.push(
        problem(
          "nvidia",
          "error",
          `-nvidia ${nvidia} is not 'all' or a comma list of device ids`,
          "give e.g. 0,1 (no spaces) or all",
        ),
      );
    } else if (new Set(ids.map(Number)).size !== ids.length) {
      out.push(
        problem("nvidia", "error", `-nvidia ${nvidia} names a device twice`, "list each device id once"),
      );
    }
  }
  if (nvidia && flagText(values, "netint")) {
    out.push(
      problem(
        "nvidia,netint",
        "error",
        "both -nvidia and -netint: the node exits",
        "use one kind of accelerator per node",
      ),
    );
  }
  return out;
};
