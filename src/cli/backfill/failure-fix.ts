import type { StreamFailure } from '../../state/index.js';

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
      return upstreamUnreachable(failure)
        ? 'fix: start the upstream API or correct upstream.baseUrl / upstream.v2BaseUrl, then run again (it resumes)'
        : undefined;
  }
}

/** A network failure of an upstream request: the service could not be reached at all. */
export function upstreamUnreachable(failure: StreamFailure): boolean {
  return failure.kind === 'transient' && /\bnetwork: (E[A-Z_]+|UND_ERR_CONNECT_TIMEOUT)\b/.test(failure.message);
}
