// Before the unit project's files load: the media tools the HLS tests decode with (their
// `it.skipIf` reads the PATH when the file loads). Installed on first use as root; otherwise
// those tests skip, saying why here, and a CI run fails naming them (test/reporters/no-skips.ts).
import { ensureMediaTools } from "../../src/dev/media-tools.ts";

export async function setup(): Promise<void> {
  try {
    await ensureMediaTools((line) => process.stderr.write(`${line}\n`));
  } catch (err) {
    process.stderr.write(`[media] the HLS decoding tests will skip: ${(err as Error).message}\n`);
  }
}
