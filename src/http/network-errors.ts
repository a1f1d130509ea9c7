/** Connection-level failures a later attempt can get past (undici and Node codes). */
const TRANSIENT_ERROR_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
]);

// A certificate that does not verify is a configuration problem: retrying cannot fix it.
const TLS_CODES: ReadonlySet<string> = new Set([
  'CERT_HAS_EXPIRED',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);
const ABORT_CODES: ReadonlySet<string> = new Set(['UND_ERR_ABORTED', 'ABORT_ERR']);
// A deadline that passed: `AbortSignal.timeout` and undici's own timeout errors.
const TIMEOUT_NAMES: ReadonlySet<string> = new Set(['TimeoutError', 'ConnectTimeoutError', 'HeadersTimeoutError', 'BodyTimeoutError']);

/** What a thrown error says about the request, read through up to five `cause`s. */
type ThrownKind = 'timeout' | 'aborted' | 'network' | 'tls' | 'bad_options' | 'unknown';

interface ThrownFailure {
  readonly kind: ThrownKind;
  /** The code or name that decided the kind; the first code found otherwise. */
  readonly label: string;
  readonly code?: string;
  /** The outermost error's message (may come from outside: redact before output). */
  readonly message: string;
}

function chain(error: unknown): { codes: string[]; names: string[] } {
  const codes: string[] = [];
  const names: string[] = [];
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 5; depth += 1) {
    const { code, name, cause } = current as { code?: unknown; name?: unknown; cause?: unknown };
    if (typeof code === 'string') codes.push(code);
    if (typeof name === 'string') names.push(name);
    current = cause;
  }
  return { codes, names };
}

function messageOf(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { message } = error as { message?: unknown };
    return typeof message === 'string' ? message : Object.prototype.toString.call(error);
  }
  return String(error);
}

/** Reads a thrown error's kind; the first rule that matches wins (a timeout before an abort). */
export function describeThrown(error: unknown): ThrownFailure {
  const { codes, names } = chain(error);
  const message = messageOf(error);
  const first = codes[0];
  const found = (kind: ThrownKind, label: string, code = first): ThrownFailure => ({ kind, label, message, ...(code === undefined ? {} : { code }) });
  const timeout = names.find((n) => TIMEOUT_NAMES.has(n));
  if (timeout !== undefined) return found('timeout', first ?? timeout);
  const abort = codes.find((c) => ABORT_CODES.has(c)) ?? names.find((n) => n === 'AbortError');
  if (abort !== undefined) return found('aborted', abort, first ?? 'ABORT_ERR');
  const transient = codes.find((c) => TRANSIENT_ERROR_CODES.has(c));
  if (transient !== undefined) return found('network', transient, transient);
  const tls = codes.find((c) => TLS_CODES.has(c));
  if (tls !== undefined) return found('tls', tls, tls);
  if (first?.startsWith('UND_ERR_INVALID') === true) return found('bad_options', first);
  return found('unknown', first ?? names[0] ?? 'Error');
}
