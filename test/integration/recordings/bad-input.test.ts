import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FolderStore } from '../../../connectors/object-storage/folder.js';
import { archiveRecording, type DownloadOptions } from '../../../connectors/recordings/download.js';
import { startSimulator, type RecordingFault, type Simulator } from '../../../simulator/index.js';

const MAX_BYTES = 1_000_000;
let simulator: Simulator;
let dispatcher: Agent;
let dir: string;
let store: FolderStore;
let waits: number[];
let ref: { businessId: string; stream: string; id: string; url: string; createdAt: string };

beforeAll(async () => {
  simulator = await startSimulator({ businesses: 1, calls: 10, voicemails: 1, numbers: 1, seed: 7, rateLimit: false, recordings: { size: 30_000 } });
  const call = simulator.truth('biz-1').calls.find((record) => typeof (record.expected as { recording_url?: unknown }).recording_url === 'string');
  if (call === undefined) throw new Error('the scene has no call with a recording');
  const expected = call.expected as { recording_url: string; created_at: string };
  ref = { businessId: 'biz-1', stream: 'calls', id: call.id, url: expected.recording_url, createdAt: expected.created_at };
  dispatcher = new Agent();
});

afterAll(async () => {
  await dispatcher.close();
  await simulator.close();
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'callsync-recordings-bad-'));
  store = await FolderStore.open({ type: 'folder', path: dir });
  waits = [];
  return () => rm(dir, { recursive: true, force: true });
});

function archive(fault: RecordingFault | undefined, attempts?: number[]) {
  simulator.setRecordings({ faults: fault === undefined ? [] : [{ fault, records: [ref.id], ...(attempts === undefined ? {} : { attempts }) }] });
  const options: DownloadOptions = {
    dispatcher,
    store,
    maxBytes: MAX_BYTES,
    allowHosts: [],
    timeoutMs: 10_000,
    retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
    maxWaitMs: 60_000,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
  };
  return archiveRecording(ref, options);
}

/** Every key a reader sees, and what staging holds: empty both after a refusal. */
async function kept(): Promise<{ keys: string[]; staging: string[] }> {
  const keys: string[] = [];
  for await (const object of store.list('')) keys.push(object.key);
  return { keys, staging: await readdir(store.stagingDirectory) };
}

describe('archiving a recording from the simulator’s recordings host, over real HTTP', () => {
  it('keeps the simulator’s bytes, and comes through a 503 with Retry-After and a connection reset mid-body', async () => {
    const served = simulator.recording(ref.url);
    expect(await archive(undefined)).toMatchObject({ state: 'archived', sha256: served?.sha256, bytes: served?.bytes });
    expect(await archive({ kind: 'status', status: 503, retryAfter: '2' }, [1])).toMatchObject({ state: 'archived', sha256: served?.sha256 });
    expect(waits[0]).toBeGreaterThanOrEqual(2_000);
    expect(await archive({ kind: 'reset', afterBytes: 10_000 }, [1])).toMatchObject({ state: 'archived', sha256: served?.sha256, bytes: served?.bytes });
  });

  it.each<[string, RecordingFault, RegExp]>([
    [
      'a 2 GB recording over maxBytes',
      { kind: 'oversized', declaredBytes: 2 * 1024 ** 3 },
      /^larger than recordings\.maxBytes \(2147483648 bytes > 1000000 bytes\)/,
    ],
    ['an endless body', { kind: 'endless' }, /^larger than recordings\.maxBytes \(more > 1000000 bytes\)/],
    ['a 200 with an HTML error page', { kind: 'html' }, /^answered 200 with text\/html.*, not audio$/],
    ['a redirect to a host not allowed', { kind: 'redirect', to: 'foreign' }, /^redirected to localhost:\d+, which is not in recordings\.allowHosts$/],
  ])('fails %s with a clear reason, nothing under the final key', async (_name, fault, reason) => {
    const before = simulator.counters().recordings.foreignRequests;
    const outcome = await archive(fault);
    expect(outcome.state).toBe('failed');
    expect('reason' in outcome && outcome.reason).toMatch(reason);
    expect(await kept()).toEqual({ keys: [], staging: [] });
    expect(simulator.counters().recordings.foreignRequests).toBe(before);
  });
});
