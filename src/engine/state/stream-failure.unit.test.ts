import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../source/upstream/index.js';
import { describeStreamFailure } from './stream-failure.js';
import { PayloadShapeError } from '../../source/walkers/index.js';

const request = { method: 'GET', host: 'calls.example.com', path: '/calls' };

describe('describeStreamFailure', () => {
  it.each([
    [new UpstreamError('401 Invalid API key', { code: 'UNAUTHORIZED', kind: 'auth', status: 401, request }), 'business', 'auth'],
    [new UpstreamError('403 role', { code: 'FORBIDDEN', kind: 'forbidden', status: 403, request }), 'business', 'forbidden'],
    [new UpstreamError('404', { code: 'NOT_FOUND', kind: 'invalid', status: 404, request }), 'stream', 'invalid'],
    [new UpstreamError('500', { code: 'SERVER_ERROR', kind: 'transient', status: 500, request }), 'stream', 'transient'],
    [new PayloadShapeError('expected "calls" to be an array'), 'stream', 'contract'],
    [Object.assign(new Error('daily limit reached'), { kind: 'daily_limit' }), 'stream', 'sink'],
    [new Error('boom'), 'stream', 'internal'],
  ])('%s → %s / %s', (error, scope, kind) => {
    expect(describeStreamFailure(error)).toMatchObject({ scope, kind });
  });
});
