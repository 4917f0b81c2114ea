import pino, { type DestinationStream, type Logger } from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { errorField } from './errors.ts';

// A watchlist feed URL carries its token in the path (feed readers cannot send headers): logged with the token's
// display start only (the 14 characters the token list shows), never whole: otherwise every feed poll would write a
// working credential into the access log.
const FEED_TOKEN_PATH = /^(\/feeds\/watchlist\/)([^/]{0,14})[^/]*$/;

/** The path of a request URL as logged: no query string, no credential (a feed token keeps its display start). */
export function loggedPath(url: string | undefined): string | undefined {
  const path = url?.split('?')[0];
  return path?.startsWith('/feeds/watchlist/') ? path.replace(FEED_TOKEN_PATH, '$1$2…[redacted]') : path;
}

/** Structured logs; credentials redacted, request and response bodies never logged. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'req.headers["x-internal-key"]',
          'res.headers["set-cookie"]',
        ],
        censor: '[redacted]',
      },
      serializers: {
        req: (req: { method?: string; url?: string; ip?: string }) => ({
          method: req.method,
          url: loggedPath(req.url),
          remoteAddress: req.ip,
        }),
        res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
        err: logSafeError,
      },
    },
    destination,
  );
}

/** A PostgreSQL error as pg reports it: SQLSTATE in `code`, and a severity. */
function isDatabaseError(e: unknown): e is { code: string; severity: string } {
  if (typeof e !== 'object' || e === null || !('code' in e) || !('severity' in e)) return false;
  return typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && typeof e.severity === 'string';
}

/**
 * An error as it may be logged. A database error's message, `detail`, `where` and `hint` can quote the values a
 * client submitted (`invalid input syntax for type integer: "…"`, `JSON data, line 1: {"asset_id":…`), and bodies
 * are never logged: so a database error is logged as its SQLSTATE, severity, table and constraint names and the
 * stack frames, nothing else. Other errors keep pino's standard form, their `cause` scrubbed the same way.
 */
export function logSafeError(err: unknown, depth = 0): unknown {
  if (isDatabaseError(err)) {
    const table = errorField(err, 'table');
    const constraint = errorField(err, 'constraint');
    const routine = errorField(err, 'routine');
    const stack = errorField(err, 'stack');
    return {
      type: 'DatabaseError',
      sqlstate: err.code,
      severity: err.severity,
      ...(table ? { table } : {}),
      ...(constraint ? { constraint } : {}),
      ...(routine ? { routine } : {}),
      stack: (typeof stack === 'string' ? stack : '')
        .split('\n')
        .filter((l) => /^\s+at /.test(l))
        .join('\n'),
    };
  }
  if (!(err instanceof Error)) return err;
  const out = pino.stdSerializers.err(err);
  const cause = errorField(err, 'cause');
  if (cause === undefined) return out;
  // pino appends the causes' messages to the stack; keep the error's own stack and scrub the cause.
  return { ...out, stack: err.stack, cause: depth < 5 ? logSafeError(cause, depth + 1) : '[cause omitted]' };
}

type LogArgs = Parameters<Logger['info']>;

/**
 * Fastify's per-request child logger (its `childLoggerFactory`), made lazily: pino's `child()` (bindings
 * serialised, prototype chain built) runs only when the request logs a line. A successful ping logs none
 * (docs/operations.md "Logging"), so it pays for no child logger (docs/benchmarks.md "Per-request overhead").
 */
class LazyChildLogger {
  #parent: Logger;
  #bindings: pino.Bindings;
  #opts: pino.ChildLoggerOptions;
  #real: Logger | undefined;
  constructor(parent: Logger, bindings: pino.Bindings, opts: pino.ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#opts = opts;
  }
  #logger(): Logger {
    return (this.#real ??= this.#parent.child(this.#bindings, this.#opts));
  }
  get level(): string {
    return this.#real?.level ?? this.#opts.level ?? this.#parent.level;
  }
  set level(l: string) {
    this.#logger().level = l;
  }
  isLevelEnabled(l: string): boolean {
    return this.#real
      ? this.#real.isLevelEnabled(l)
      : this.#opts.level === undefined
        ? this.#parent.isLevelEnabled(l)
        : this.#logger().isLevelEnabled(l);
  }
  bindings(): pino.Bindings {
    return this.#logger().bindings();
  }
  child(bindings: pino.Bindings, opts?: pino.ChildLoggerOptions): Logger {
    return this.#logger().child(bindings, opts);
  }
  fatal(...a: LogArgs): void {
    this.#logger().fatal(...a);
  }
  error(...a: LogArgs): void {
    this.#logger().error(...a);
  }
  warn(...a: LogArgs): void {
    this.#logger().warn(...a);
  }
  info(...a: LogArgs): void {
    this.#logger().info(...a);
  }
  debug(...a: LogArgs): void {
    this.#logger().debug(...a);
  }
  trace(...a: LogArgs): void {
    this.#logger().trace(...a);
  }
  silent(): void {}
}

export function lazyChildLogger(
  parent: Logger,
  bindings: pino.Bindings,
  opts: pino.ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyChildLogger(parent, bindings, opts);
}
