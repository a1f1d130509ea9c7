import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import { createRedactor, forTerminal } from '../../../base/redact/index.js';

interface LoggerOptions {
  readonly level?: LevelWithSilent;
  /** Every secret value from the config; any log line containing one has it replaced. */
  readonly secrets?: readonly string[];
  /** @defaultValue standard error, so standard output stays free for tables and JSON. */
  readonly destination?: DestinationStream;
  /**
   * Lines to standard error are gathered and written together at most this late (or once 4 KB
   * wait), and at exit. A `run` worker logs a line per stream poll, thousands a minute, and one
   * write each cost it more CPU than the rest of an idle poll's logging. A process killed with
   * SIGKILL loses what was not yet written. Ignored with `destination`.
   * @defaultValue 0: every line written at once
   */
  readonly bufferMs?: number;
}

/** What a buffered standard error gathers before it writes without waiting for `bufferMs`. */
const BUFFER_BYTES = 4096;

/**
 * Secrets are scrubbed from the serialized line rather than from known paths: an error message,
 * a URL or a nested cause can carry a value in a place no redaction path anticipates. Control
 * characters JSON leaves raw (C1, such as the 8-bit CSI) are dropped so a line cannot drive a terminal.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const redact = createRedactor(options.secrets ?? []);
  return pino(
    {
      level: options.level ?? 'info',
      base: undefined,
      hooks: { streamWrite: (line) => forTerminal(redact(line)) },
    },
    options.destination ?? (options.bufferMs ? pino.destination({ dest: 2, minLength: BUFFER_BYTES, periodicFlush: options.bufferMs }) : pino.destination(2)),
  );
}

/**
 * Writes what a buffered logger ({@link LoggerOptions.bufferMs}) holds, now: before an error report
 * that goes straight to standard error, so the lines come first, as they happened.
 */
export function flushLogs(logger: Logger): void {
  const stream = (logger as unknown as Record<symbol, { flushSync?: () => void } | undefined>)[pino.symbols.streamSym];
  try {
    stream?.flushSync?.();
  } catch {
    // A destination not open yet or already closed holds nothing to write.
  }
}
