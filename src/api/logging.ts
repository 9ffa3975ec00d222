// Logging for the API server: fastify's pino, one line per answered request (2xx at debug, 4xx
// at info, 5xx at error), never a body, never the Authorization header, and any field named
// like a secret redacted wherever it appears. The controller runtime's Logger (used by the
// informer) writes through the same pino instance.
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifyServerOptions,
} from "fastify";
import type { Fields, Logger } from "../process/log.ts";

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

export interface LogOptions {
  level?: LogLevel;
  /** Where JSON log lines go (default stderr). Tests capture them here. */
  stream?: { write(line: string): void };
}

const REDACT = [
  "req.headers.authorization",
  "req.headers.cookie",
  "req.body",
  "body",
  "sharedSecret",
  "*.sharedSecret",
  "*.*.sharedSecret",
  "token",
  "*.token",
];

export function loggerOptions(o: LogOptions): NonNullable<FastifyServerOptions["logger"]> {
  return {
    level: o.level ?? "info",
    stream: o.stream ?? process.stderr,
    redact: { paths: REDACT, censor: "[redacted]" },
    serializers: {
      // Method, path and id only: query strings and headers may carry what logs must not.
      req: (req: { method?: string; url?: string; id?: string }) => ({
        method: req.method,
        path: (req.url ?? "").split("?")[0]?.slice(0, 200),
        id: req.id,
      }),
    },
  };
}

const DEBUG_LEVELS = new Set(["debug", "trace"]);

export function logResponses(app: FastifyInstance): void {
  // Callback-style: an async hook would cost every request a promise.
  app.addHook("onResponse", (request, reply, done) => {
    logResponse(request, reply);
    done();
  });
}

function logResponse(request: FastifyRequest, reply: FastifyReply): void {
  const status = reply.statusCode;
  // The hot path (2xx at the default level) builds nothing.
  if (status < 400 && !DEBUG_LEVELS.has(request.log.level)) return;
  const line = {
    method: request.method,
    path: request.url.split("?")[0]?.slice(0, 200),
    status,
    ms: Math.round(reply.elapsedTime * 10) / 10,
    user: request.principal?.userId,
  };
  if (status >= 500) request.log.error(line, "request failed");
  else if (status >= 400) request.log.info(line, "request refused");
  else request.log.debug(line, "request served");
}

/** The runtime's Logger interface over pino, for the informer and the store. */
export function runtimeLogger(pino: FastifyBaseLogger, component: string): Logger {
  const child = pino.child({ component });
  const at =
    (level: "debug" | "info" | "warn" | "error") =>
    (message: string, fields?: Fields): void => {
      child[level](fields ?? {}, message);
    };
  return {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: (sub) => runtimeLogger(pino, `${component}/${sub}`),
  };
}

type LogArgs = Parameters<FastifyBaseLogger["info"]>;
type Bindings = Parameters<FastifyBaseLogger["child"]>[0];
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger["child"]>[1]>;

/**
 * A request's logger, made when the request first logs: most requests never do (2xx at info),
 * and a pino child costs every request its bindings (redacted, serialised).
 */
export class LazyChildLogger implements FastifyBaseLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #opts: ChildLoggerOptions | undefined;
  #made: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, opts?: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#opts = opts;
  }

  get #logger(): FastifyBaseLogger {
    this.#made ??= this.#parent.child(this.#bindings, this.#opts);
    return this.#made;
  }

  get level(): FastifyBaseLogger["level"] {
    return this.#made?.level ?? this.#opts?.level ?? this.#parent.level;
  }

  set level(level: FastifyBaseLogger["level"]) {
    this.#logger.level = level;
  }

  fatal(...a: LogArgs): void {
    this.#logger.fatal(...a);
  }
  error(...a: LogArgs): void {
    this.#logger.error(...a);
  }
  warn(...a: LogArgs): void {
    this.#logger.warn(...a);
  }
  info(...a: LogArgs): void {
    this.#logger.info(...a);
  }
  debug(...a: LogArgs): void {
    this.#logger.debug(...a);
  }
  trace(...a: LogArgs): void {
    this.#logger.trace(...a);
  }
  silent(...a: LogArgs): void {
    this.#logger.silent(...a);
  }
  child(bindings: Bindings, opts?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger.child(bindings, opts);
  }
}

/** fastify's childLoggerFactory: a lazy child per request. */
export function lazyChildLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  opts: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, opts);
}
