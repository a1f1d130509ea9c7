import { describe, expect, it } from 'vitest';
import { parseErrorBody } from './envelopes.js';
import { unwrapSuccess } from './read-response.js';

describe('unwrapSuccess', () => {
  it('unwraps the data envelope', () => {
    expect(unwrapSuccess({ data: { calls: [], has_more: false } })).toEqual({ calls: [], has_more: false });
  });

  it('accepts a top-level legacy payload', () => {
    expect(unwrapSuccess({ numbers: [{ number: '+15550100' }], total: 1 })).toEqual({ numbers: [{ number: '+15550100' }], total: 1 });
  });

  it('keeps a non-object data field as part of a top-level payload', () => {
    expect(unwrapSuccess({ data: [1, 2] })).toEqual({ data: [1, 2] });
  });

  it.each([[null], [[1, 2]], ['text'], [undefined]])('rejects %o', (body) => {
    expect(unwrapSuccess(body)).toBeUndefined();
  });
});

describe('parseErrorBody', () => {
  it.each([
    ['ordinary v1 error', { error: { code: '401', message: 'Invalid API key' } }, { message: 'Invalid API key', code: '401' }],
    [
      'rate limit body',
      { error: 'rate_limit_exceeded', message: 'Limit 60/min, retry in 20 seconds', retry_after: 20 },
      { message: 'Limit 60/min, retry in 20 seconds', code: 'rate_limit_exceeded', retryAfterSeconds: 20 },
    ],
    ['session-style', { error: 'Invalid request: email is required' }, { message: 'Invalid request: email is required' }],
    ['bare message', { message: 'Not found' }, { message: 'Not found' }],
    ['non-JSON text', '<html>\n  <body>Bad Gateway</body>\n</html>', { message: '<html> <body>Bad Gateway</body> </html>' }],
    ['empty text', '', {}],
    ['unknown JSON', { oops: true }, {}],
  ])('%s', (_name, body, expected) => {
    expect(parseErrorBody(body)).toEqual(expected);
  });

  it('keeps at most 200 characters of a text body', () => {
    expect(parseErrorBody('x'.repeat(5_000)).message).toHaveLength(200);
  });
});
