import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
/** What a pino logger has beyond Fastify's logger interface. */
type Pino = FastifyBaseLogger & { levels: { values: Record<string, number> }; levelVal: number };

/**
 * A request's logger (request.log, reply.log). Fastify makes one for every request: a pino child
 * holding the request id — and, on a route with its own log level (/api/health's is warn), a
 * child whose every log method pino rebuilds. That was a large share of a small answer's cost,
 * for a logger most requests of such routes never write to. This one is a few fields until a line
 * is written at a level it writes: then it makes the same child pino would have made, once, and
 * every line goes through it (same output: the request id, the route's level and serializers).
 */
class RequestLogger {
  readonly #parent: Pino;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #child: FastifyBaseLogger | undefined;
  /** The lowest level value written (pino's numbers: trace 10 … fatal 60; silent is Infinity). */
  #min: number;

  constructor(parent: Pino, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
    this.#min = options.level === undefined ? parent.levelVal : levelValue(parent, options.level);
  }

  #real(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }

  #write(level: LevelName, args: unknown[]): void {
    if (levelValue(this.#parent, level) < this.#min) return;
    (this.#real()[level] as (...a: unknown[]) => void)(...args);
  }

  get level(): string {
    return this.#child?.level ?? this.#options.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.#real().level = level;
    this.#min = levelValue(this.#parent, level);
  }

  isLevelEnabled(level: string): boolean {
    return levelValue(this.#parent, level) >= this.#min;
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#write('error', args);
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }
  info(...args: unknown[]): void {
    this.#write('info', args);
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options);
  }
}

function levelValue(logger: Pino, level: string): number {
  return level === 'silent' ? Infinity : (logger.levels.values[level] ?? logger.levelVal);
}

const isPino = (logger: FastifyBaseLogger): logger is Pino => typeof (logger as Partial<Pino>).levels?.values === 'object' && typeof (logger as Partial<Pino>).levelVal === 'number';

/**
 * Fastify's childLoggerFactory: request loggers that become pino children only when written to.
 * Any other logger (Fastify's null logger when logging is off) makes its children as it does.
 */
export const lazyRequestLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) =>
  isPino(logger) ? (new RequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger) : logger.child(bindings, options);
