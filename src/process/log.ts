// One line per event, readable at 3 am: time, level, component, what happened, then key=value
// facts. Callers pass keys, names, reasons and messages; never objects (which may hold secrets).

export type Fields = Record<string, string | number | boolean | undefined>;

export interface Logger {
  info(message: string, fields?: Fields): void;
  warn(message: string, fields?: Fields): void;
  error(message: string, fields?: Fields): void;
  debug(message: string, fields?: Fields): void;
  child(component: string): Logger;
}

export type LogLevel = "debug" | "info" | "warn" | "error";
const rank: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

function formatValue(v: string | number | boolean): string {
  const s = String(v);
  return /^[^\s"=]+$/.test(s) ? s : JSON.stringify(s);
}

export function formatLine(level: LogLevel, component: string, message: string, fields: Fields = {}): string {
  const facts = Object.entries(fields)
    .filter((e): e is [string, string | number | boolean] => e[1] !== undefined && e[1] !== "")
    .map(([k, v]) => `${k}=${formatValue(v)}`)
    .join(" ");
  const head = `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} [${component}] ${message}`;
  return facts ? `${head} ${facts}` : head;
}

export function createLogger(
  component: string,
  opts: { level?: LogLevel; write?: (line: string) => void } = {},
): Logger {
  const min = rank[opts.level ?? "info"];
  const write = opts.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const at =
    (level: LogLevel) =>
    (message: string, fields?: Fields): void => {
      if (rank[level] >= min) write(formatLine(level, component, message, fields));
    };
  return {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: (sub) => createLogger(`${component}/${sub}`, opts),
  };
}

/** For tests and libraries that must stay quiet. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => silentLogger,
};
