import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';

export interface LoggerOptions {
  readonly level?: LevelWithSilent;
  /** Every secret value from the config; any log line containing one has it replaced. */
  readonly secrets?: readonly string[];
  /** @defaultValue standard error, so standard output stays free for tables and JSON. */
  readonly destination?: DestinationStream;
}

/**
 * Secrets are scrubbed from the serialized line rather than from known paths: an error message,
 * a URL or a nested cause can carry a value in a place no redaction path anticipates.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const secrets = [...new Set(options.secrets ?? [])].filter((secret) => secret.length >= 4);
  return pino(
    {
      level: options.level ?? 'info',
      base: undefined,
      hooks: secrets.length === 0 ? {} : { streamWrite: (line) => scrubSecrets(line, secrets) },
    },
    options.destination ?? pino.destination(2),
  );
}

export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let scrubbed = text;
  for (const secret of secrets) scrubbed = scrubbed.split(secret).join('[redacted]');
  return scrubbed;
}
