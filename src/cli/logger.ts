import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import { createRedactor, forTerminal } from '../redact/index.js';

export interface LoggerOptions {
  readonly level?: LevelWithSilent;
  /** Every secret value from the config; any log line containing one has it replaced. */
  readonly secrets?: readonly string[];
  /** @defaultValue standard error, so standard output stays free for tables and JSON. */
  readonly destination?: DestinationStream;
}

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
    options.destination ?? pino.destination(2),
  );
}
