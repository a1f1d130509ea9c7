import type { SinkDescription, SinkFailureExplanation } from '../../src/sink/sink.js';
import { errorCodes, explainUnreachable } from '../../src/sink/sink-errors.js';

/** Stable codes of storage failures an operator can fix; the S3 service's own code is kept as `cause`. */
type ObjectStoreErrorCode = 'OBJECT_KEY_INVALID' | 'S3_NO_SUCH_BUCKET' | 'S3_ACCESS_DENIED' | 'S3_NO_CREDENTIALS' | 'S3_FAILED';

/** A storage failure, with the S3 service's answer (status, code) but never a credential. */
export class ObjectStoreError extends Error {
  override readonly name = 'ObjectStoreError';
  readonly code: ObjectStoreErrorCode;

  constructor(message: string, code: ObjectStoreErrorCode, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** S3's error codes (and the SDK's names for them) that mean these credentials may not do this. */
const DENIED = new Set(['AccessDenied', 'InvalidAccessKeyId', 'SignatureDoesNotMatch', 'InvalidToken', 'ExpiredToken', 'Forbidden']);

/** An S3 SDK failure as one of our codes: what the operator can act on, named; anything else `S3_FAILED`. */
export function s3Failure(error: unknown, bucket: string, doing: string): unknown {
  const { name, $metadata } = (error ?? {}) as { name?: unknown; $metadata?: { httpStatusCode?: number } };
  const status = $metadata?.httpStatusCode;
  if (typeof name !== 'string' || status === undefined) {
    if (typeof name === 'string' && name === 'CredentialsProviderError')
      return new ObjectStoreError(`no S3 credentials found (${doing})`, 'S3_NO_CREDENTIALS', { cause: error });
    return error;
  }
  if (name === 'NoSuchBucket' || (status === 404 && name === 'NotFound' && doing.startsWith('list')))
    return new ObjectStoreError(`bucket "${bucket}" does not exist (${doing}: ${status} ${name})`, 'S3_NO_SUCH_BUCKET', { cause: error });
  if (DENIED.has(name) || status === 403)
    return new ObjectStoreError(`the credentials were refused (${doing}: ${status} ${name})`, 'S3_ACCESS_DENIED', { cause: error });
  return new ObjectStoreError(`S3 answered ${status} ${name} (${doing})`, 'S3_FAILED', { cause: error });
}

/**
 * The operator's two lines for a storage failure under `sink` (its key names the storage section,
 * e.g. `sink.storage.bucket`): a missing bucket, refused or absent credentials, an unreachable endpoint.
 */
export function explainObjectStoreFailure(codes: readonly string[], sink: SinkDescription, section: string): SinkFailureExplanation | undefined {
  const at = `${sink.service} at ${sink.shown} (${sink.key})`;
  if (codes.includes('S3_NO_SUCH_BUCKET'))
    return { what: `${at}: the bucket does not exist`, fix: `create the bucket, or correct ${section}.bucket`, cause: 'unreachable' };
  if (codes.includes('S3_ACCESS_DENIED'))
    return {
      what: `${at}: the credentials were refused`,
      fix: `correct ${section}.accessKeyId and ${section}.accessKeySecret (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY); the key needs s3:ListBucket, GetObject, PutObject and DeleteObject on the bucket`,
      cause: 'unreachable',
    };
  if (codes.includes('S3_NO_CREDENTIALS'))
    return {
      what: `${at}: no credentials were given or found`,
      fix: `set ${section}.accessKeyId and ${section}.accessKeySecret, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`,
      cause: 'unreachable',
    };
  return undefined;
}

/** A failure under a run, read for the operator: storage codes, else an endpoint that cannot be reached. */
export function explainObjectStoreError(error: unknown, sink: SinkDescription, section: string): SinkFailureExplanation | undefined {
  return explainObjectStoreFailure(errorCodes(error), sink, section) ?? explainUnreachable(error, sink);
}
