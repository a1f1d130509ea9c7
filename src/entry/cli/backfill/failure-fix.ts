import type { StreamFailure } from '../../../engine/state/index.js';
import { EXIT, type ExitCode } from '../failure/exit-codes.js';

/** What the operator does about a failed business, naming the config keys; undefined when nothing they change helps. */
export function failureFix(failure: StreamFailure, business: string, index: number): string | undefined {
  const at = `businesses[${index}]`;
  switch (failure.kind) {
    case 'auth':
      return `fix: correct the credentials of business ${business} (${at}.apiKey, ${at}.session or ${at}.v2Token), then run again`;
    case 'forbidden':
      return `fix: give the credentials of business ${business} (${at}) access to this data, or remove the stream from ${at}.streams`;
    case 'sink':
      return `fix: ${failure.fix ?? 'check the sink named in the message (sink.url or sink.path) and run again'}; what was stored is kept`;
    default:
      if (failure.fix !== undefined) return `fix: ${failure.fix}`;
      return upstreamUnreachable(failure)
        ? 'fix: start the upstream API or correct upstream.baseUrl / upstream.v2BaseUrl, then run again (it resumes)'
        : undefined;
  }
}

/** A network failure of an upstream request: the service could not be reached at all. */
function upstreamUnreachable(failure: StreamFailure): boolean {
  return failure.kind === 'transient' && /\bnetwork: (E[A-Z_]+|UND_ERR_CONNECT_TIMEOUT)\b/.test(failure.message);
}

/**
 * The exit code of a failure: 3 when a service could not be reached (upstream, or the sink, whose
 * message begins with the kind its connector gave it), 4 when the sink's disk said no, else 1.
 */
function exitOf(failure: StreamFailure): ExitCode {
  if (upstreamUnreachable(failure) || (failure.kind === 'sink' && failure.message.startsWith('unreachable: '))) return EXIT.unreachable;
  return failure.kind === 'sink' && failure.message.startsWith('filesystem: ') ? EXIT.filesystem : EXIT.failed;
}

/** The exit code of a run whose businesses failed with `failures`: their common one, or 1 when they differ. */
export function failedExit(failures: readonly StreamFailure[]): ExitCode {
  const codes = new Set(failures.map(exitOf));
  const [only] = codes;
  return codes.size === 1 && only !== undefined ? only : EXIT.failed;
}
