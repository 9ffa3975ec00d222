// What the node prints for -help (Go's flag.PrintDefaults format) and for -version.
import { FLAG_NAMES, FLAG_TABLE } from "../node/config/flag-table.ts";
import { GO_RUNTIME } from "./responses.ts";

export function usageText(): string {
  const lines = ["Usage of livepeer:"];
  for (const name of [...FLAG_NAMES].sort()) {
    const spec = FLAG_TABLE[name];
    const type =
      spec.type === "bool"
        ? ""
        : ` ${spec.type === "int" ? "int" : spec.type === "float" ? "float" : spec.type === "duration" ? "duration" : "string"}`;
    const dflt =
      spec.default === "" || spec.default === "false" || spec.default === "0"
        ? ""
        : ` (default ${spec.type === "string" ? JSON.stringify(spec.default) : spec.default})`;
    lines.push(`  -${name}${type}`, `    \t${spec.meaning}${dflt}`);
  }
  return `${lines.join("\n")}\n`;
}

export function versionText(version: string): string {
  return (
    [
      `Livepeer Node Version: ${version}`,
      `Golang runtime version: gc ${GO_RUNTIME.GolangRuntimeVersion}`,
      `Architecture: ${GO_RUNTIME.GOArch}`,
      `Operating system: ${GO_RUNTIME.GOOS}`,
    ].join("\n") + "\n"
  );
}
