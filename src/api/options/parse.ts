// Parsing of the `api` and `token` command-line values (listen address, durations, sizes),
// each failing with a message that shows a valid example.

export interface ListenAddress {
  host: string;
  port: number;
}

export function parseListen(value: string): ListenAddress {
  const m = /^\[([0-9a-fA-F:.]+)\]:(\d{1,5})$/.exec(value) ?? /^([^:[\]]*):(\d{1,5})$/.exec(value);
  const port = m ? Number(m[2]) : Number.NaN;
  if (!m || port > 65535) {
    throw new Error(
      `--listen ${JSON.stringify(value)} is not host:port: use e.g. 127.0.0.1:3000, 0.0.0.0:3000 or [::1]:3000`,
    );
  }
  return { host: m[1] || "0.0.0.0", port };
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** "3600", "90s", "30m", "12h", "7d" -> seconds. */
export function parseDurationSeconds(value: string, flag: string): number {
  const m = /^(\d+)([smhd]?)$/.exec(value.trim());
  const seconds = m ? Number(m[1]) * UNIT_SECONDS[m[2] || "s"]! : Number.NaN;
  if (!m || !(seconds > 0))
    throw new Error(`${flag} ${JSON.stringify(value)} is not a duration: use e.g. 3600, 30m, 12h or 7d`);
  return seconds;
}

const UNIT_BYTES: Record<string, number> = { "": 1, k: 1024, kib: 1024, m: 1024 ** 2, mib: 1024 ** 2 };

/** "65536", "64k", "64KiB", "1m" -> bytes. */
export function parseByteSize(value: string, flag: string): number {
  const m = /^(\d+)\s*([a-z]*)$/i.exec(value.trim());
  const unit = m ? UNIT_BYTES[m[2]!.toLowerCase()] : undefined;
  const bytes = m && unit ? Number(m[1]) * unit : Number.NaN;
  if (!(bytes > 0))
    throw new Error(`${flag} ${JSON.stringify(value)} is not a size: use e.g. 65536, 64k or 1m`);
  return bytes;
}

export function parseNonNegativeInt(value: string, flag: string): number {
  if (!/^\d{1,9}$/.test(value.trim()))
    throw new Error(`${flag} ${JSON.stringify(value)} must be a whole number`);
  return Number(value);
}
