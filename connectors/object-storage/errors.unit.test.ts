import { describe, expect, it } from 'vitest';
import { ObjectStoreError, s3Failure } from './errors.js';

/** An error as the AWS SDK throws it: a name (S3's code) and the HTTP status in `$metadata`. */
function sdkError(name: string, status?: number): Error {
  return Object.assign(new Error(name), { name, ...(status === undefined ? {} : { $metadata: { httpStatusCode: status } }) });
}

describe('s3Failure', () => {
  it.each([
    ['SignatureDoesNotMatch', 403, 'S3_ACCESS_DENIED', 'list the bucket'],
    ['InvalidAccessKeyId', 403, 'S3_ACCESS_DENIED', 'put a/b'],
    ['AccessDenied', 403, 'S3_ACCESS_DENIED', 'put a/b'],
    ['ExpiredToken', 400, 'S3_ACCESS_DENIED', 'put a/b'],
    ['NoSuchBucket', 404, 'S3_NO_SUCH_BUCKET', 'put a/b'],
    ['NotFound', 404, 'S3_NO_SUCH_BUCKET', 'list the bucket'],
    ['SlowDown', 503, 'S3_FAILED', 'put a/b'],
  ])('reads %s (%i) as %s', (name, status, code, doing) => {
    const failure = s3Failure(sdkError(name, status), 'calls-lake', doing);
    expect(failure).toBeInstanceOf(ObjectStoreError);
    expect((failure as ObjectStoreError).code).toBe(code);
    expect((failure as ObjectStoreError).cause).toBeInstanceOf(Error);
  });

  it('reads missing credentials, and leaves a network failure as it is', () => {
    expect((s3Failure(sdkError('CredentialsProviderError'), 'calls-lake', 'list the bucket') as ObjectStoreError).code).toBe('S3_NO_CREDENTIALS');
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9000'), { code: 'ECONNREFUSED' });
    expect(s3Failure(refused, 'calls-lake', 'list the bucket')).toBe(refused);
  });
});
