// The spec: the -ethPassword file must have no trailing newline (editors and `echo` add one, and
// a password with a newline in it does not unlock the keystore).
import type { FlagProblem } from "./problem.ts";

export function passwordFileProblem(content: string | Uint8Array): FlagProblem | undefined {
  const text = typeof content === "string" ? content : new TextDecoder().decode(content);
  if (text.length === 0) {
    return {
      flag: "ethPassword",
      severity: "error",
      message: "the -ethPassword file is empty",
      fix: "write the keystore password into the file",
    };
  }
  if (/\r?\n$/.test(text)) {
    return {
      flag: "ethPassword",
      severity: "error",
      message: "the -ethPassword file ends with a newline, which the spec forbids",
      fix: "write it without one, e.g. printf '%s' \"$PASSWORD\" > password (not echo)",
    };
  }
  return undefined;
}
