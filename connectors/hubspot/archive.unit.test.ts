import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { archiveCalls } from './archive.js';
import type { HubSpotHttp } from './client.js';
import { fakeClock, mockedHubSpotHttp, ORIGIN } from '../../test/support/hubspot-mock-portal.js';
import { tombstoneValue, valueBeforeTombstone } from './tombstone.js';

const READ = '/crm/v3/objects/calls/batch/read';
const UPDATE = '/crm/v3/objects/calls/batch/update';
const ARCHIVE = '/crm/v3/objects/calls/batch/archive';

describe('archiveCalls', () => {
  let agent: MockAgent;
  let http: HubSpotHttp;
  let sent: { path: string; body: unknown }[];

  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
    sent = [];
    http = mockedHubSpotHttp(agent, fakeClock(), { retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 } });
  });
  afterEach(async () => agent.close());

  function answer(path: string, status: number, body: unknown): void {
    agent
      .get(ORIGIN)
      .intercept({ path, method: 'POST' })
      .reply(status, (request) => {
        sent.push({ path, body: typeof request.body === 'string' ? (JSON.parse(request.body) as unknown) : undefined });
        return body as object;
      });
  }

  const found = {
    results: [
      { id: '11', properties: { callsync_id: 'a:calls:1' } },
      { id: '12', properties: { callsync_id: 'a:calls:2' } },
    ],
  };

  it('moves each unique value aside, then archives the calls HubSpot updated', async () => {
    answer(READ, 200, found);
    answer(UPDATE, 207, { results: [{ id: '11' }], errors: [{ category: 'OBJECT_NOT_FOUND', message: 'gone', context: { id: ['12'] } }] });
    answer(ARCHIVE, 204, '');
    await expect(archiveCalls(http, 'callsync_id', ['a:calls:1', 'a:calls:2'])).resolves.toBe(1);
    expect(sent.map((request) => request.path)).toEqual([READ, UPDATE, ARCHIVE]);
    expect(sent[1]?.body).toEqual({
      inputs: expect.arrayContaining([
        { id: '11', properties: { callsync_id: 'a:calls:1#archived-11' } },
        { id: '12', properties: { callsync_id: 'a:calls:2#archived-12' } },
      ]) as unknown,
    });
    expect(sent[2]?.body).toEqual({ inputs: [{ id: '11' }] });
    agent.assertNoPendingInterceptors();
  });

  it('puts the values back when the archive fails, so a retry finds the calls again', async () => {
    answer(READ, 200, found);
    answer(UPDATE, 200, { results: [{ id: '11' }, { id: '12' }] });
    answer(ARCHIVE, 500, { message: 'internal error' });
    answer(UPDATE, 200, { results: [{ id: '11' }, { id: '12' }] });
    await expect(archiveCalls(http, 'callsync_id', ['a:calls:1', 'a:calls:2'])).rejects.toThrow(/batch\/archive failed: HTTP 500/);
    expect(sent.map((request) => request.path)).toEqual([READ, UPDATE, ARCHIVE, UPDATE]);
    expect(sent[3]?.body).toEqual({
      inputs: expect.arrayContaining([
        { id: '11', properties: { callsync_id: 'a:calls:1' } },
        { id: '12', properties: { callsync_id: 'a:calls:2' } },
      ]) as unknown,
    });
    agent.assertNoPendingInterceptors();
  });

  it('archives nothing, and puts back what moved, when HubSpot refuses to move a value', async () => {
    answer(READ, 200, found);
    answer(UPDATE, 207, { results: [{ id: '11' }], errors: [{ category: 'VALIDATION_ERROR', message: 'no', context: { id: ['12'] } }] });
    answer(UPDATE, 200, { results: [{ id: '11' }] });
    await expect(archiveCalls(http, 'callsync_id', ['a:calls:1', 'a:calls:2'])).rejects.toThrow(/refused to move callsync_id aside before archiving: no/);
    expect(sent.map((request) => request.path)).toEqual([READ, UPDATE, UPDATE]);
    expect(sent[2]?.body).toEqual({ inputs: [{ id: '11', properties: { callsync_id: 'a:calls:1' } }] });
    agent.assertNoPendingInterceptors();
  });

  it('a tombstone names its value and call; other values are left as they are', () => {
    expect(tombstoneValue('a:calls:1', '11')).toBe('a:calls:1#archived-11');
    expect(valueBeforeTombstone('a:calls:1#archived-11')).toBe('a:calls:1');
    expect(valueBeforeTombstone('a:calls:x#archived-later')).toBe('a:calls:x#archived-later');
    expect(valueBeforeTombstone('a:calls:1')).toBe('a:calls:1');
  });
});
