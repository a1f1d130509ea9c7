import { describe, expect, it } from 'vitest';
import { builtinStreams } from '../../source/streams/builtin-streams.js';
import { checkStream } from './check.js';
import { memorySink, offsetList, sourceOf } from '../../../test/support/reconcile-fixtures.js';

describe('checkStream', () => {
  it('counts dead letters not stored as accounted for, and asks upstream with one request', async () => {
    const { fetch, queries } = offsetList(['1', '2', '3', '4']);
    const { sink } = await memorySink(['1', '2', '3'], ['4', '2']);
    expect(await checkStream({ business: 'acme', source: sourceOf(fetch), sink })).toMatchObject({ stored: 4, upstream: 4, difference: 0, verdict: 'ok' });
    expect(queries).toEqual([{ limit: 1, offset: 0 }]);
  });

  it('reports a difference with its sign, and uses a known total without a request', async () => {
    const { fetch, queries } = offsetList([]);
    const { sink } = await memorySink(['1', '2']);
    expect(await checkStream({ business: 'acme', source: sourceOf(fetch), sink, knownTotal: 5 })).toMatchObject({ difference: 3, verdict: 'differs' });
    expect(await checkStream({ business: 'acme', source: sourceOf(fetch), sink, knownTotal: 1 })).toMatchObject({ difference: -1, verdict: 'differs' });
    expect(queries).toEqual([]);
  });

  it('never calls a v2 stream ok: it has no total', async () => {
    const { fetch, queries } = offsetList(['1']);
    const { sink } = await memorySink(['1']);
    const voicemails = builtinStreams.get('voicemails')!;
    expect(await checkStream({ business: 'acme', source: sourceOf(fetch, { descriptor: voicemails }), sink, knownTotal: 1 })).toMatchObject({
      upstream: null,
      verdict: 'not_verifiable',
    });
    expect(queries).toEqual([]);
  });
});
