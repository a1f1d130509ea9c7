import { forTerminal, redactUrlCredentials, type Redact } from '../../../base/redact/index.js';
import { EXIT, OperatorError, type ExitCode } from './exit-codes.js';

/** Stack traces are for whoever asked for them: `--verbose` or `LOG_LEVEL=debug`. */
export function wantsStack(argv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  return argv.includes('--verbose') || ['debug', 'trace'].includes(env.LOG_LEVEL?.toLowerCase() ?? '');
}

/**
 * Prints what ended a command, the operator's lines for an {@link OperatorError}, one line for
 * anything else, and returns the exit code. Secrets are scrubbed (`redact`: the config's, once
 * loaded; URL credentials always) and control characters dropped: driver messages quote
 * connection strings and upstream text.
 */
export function reportFatal(error: unknown, verbose: boolean, write: (text: string) => void, redact: Redact = redactUrlCredentials): ExitCode {
  const clean = (text: string): string => redact(forTerminal(text));
  if (error instanceof OperatorError) {
    write(`error: ${clean(error.message)}\n`);
    if (verbose && error.cause instanceof Error) write(`${clean(error.cause.stack ?? error.cause.message)}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  write(`error: ${clean(message.split('\n')[0] ?? '')}\n`);
  write(verbose && error instanceof Error ? `${clean(error.stack ?? '')}\n` : 'run again with --verbose for the stack trace\n');
  return EXIT.failed;
}
