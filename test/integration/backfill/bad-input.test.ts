import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { backfillOnce, configDocument, testConfig } from '../support/backfill-harness.js';
import { runCli } from '../support/cli-process.js';
import { expectMirrorExact } from '../support/sqlite-mirror.js';

let simulator: Simulator;
let directory: string;

beforeEach(async () => {
  simulator = await startSimulator({ businesses: 3, calls: 1_200, voicemails: 60, numbers: 3, seed: 3, rateLimit: { limit: 100, windowMs: 1000 } });
  directory = mkdtempSync(join(tmpdir(), 'callsync-bad-'));
});

afterEach(async () => {
  await simulator.close();
});

describe('bad credentials stop only their business', () => {
  it('exits non-zero naming the business with a wrong key, never printing the key, and syncs the others', async () => {
    const databasePath = join(directory, 'wrong-key.db');
    const configPath = join(directory, 'wrong-key.json');
    const wrongKey = 'ctk_live_0000000000000000000000000000000000000000';
    writeFileSync(configPath, JSON.stringify(configDocument(simulator, databasePath, { apiKeys: { 'biz-2': wrongKey } })));
    const result = await runCli(['backfill', '--config', configPath, '--no-progress']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/business biz-2 failed: auth: .*401/);
    expect(result.stderr).not.toMatch(/business biz-(1|3) failed/);
    expect(result.stdout + result.stderr).not.toContain(wrongKey);
    expectMirrorExact(databasePath, simulator, ['biz-1', 'biz-3']);
  });

  it('treats a revoked key the same way', async () => {
    const databasePath = join(directory, 'revoked.db');
    simulator.revokeKey('biz-3');
    const run = await backfillOnce(testConfig(simulator, databasePath));
    const byName = new Map(run.outcomes.map((outcome) => [outcome.business, outcome]));
    expect(byName.get('biz-3')?.failure).toMatchObject({ scope: 'business', kind: 'auth' });
    // The v1 stream failed; the business stopped before its other streams made more requests.
    expect(byName.get('biz-3')?.streams).toHaveLength(1);
    expect(byName.get('biz-1')?.failure).toBeUndefined();
    expectMirrorExact(databasePath, simulator, ['biz-1', 'biz-2']);
  });
});

describe('bad config', () => {
  it('lists every problem with the file and the path, and exits 2', async () => {
    const configPath = join(directory, 'bad.json');
    const document = configDocument(simulator, join(directory, 'never.db'));
    const businesses = document.businesses.map((business, index) =>
      index === 1 ? { ...business, apiKey: '${CALLSYNC_TEST_UNSET_KEY}' } : index === 2 ? { ...business, colour: 'red' } : business,
    );
    writeFileSync(configPath, JSON.stringify({ ...document, businesses, upstream: { ...document.upstream, pageSize: 900 } }));
    const result = await runCli(['check-config', configPath]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(configPath);
    expect(result.stderr).toMatch(/businesses\[1\]\.apiKey.*CALLSYNC_TEST_UNSET_KEY/);
    expect(result.stderr).toMatch(/businesses\[2\].*colour/);
    expect(result.stderr).toMatch(/upstream\.pageSize/);
  });
});

describe('bad upstream records', () => {
  it('go to dead letters with the reason while the rest of the page is stored', async () => {
    const databasePath = join(directory, 'dead.db');
    simulator.addRawVoicemail('biz-1', { voicemail_created_at: '2025-06-02 10:00:00', voicemail_to_number: '+14155550100' });
    simulator.addRawVoicemail('biz-1', { uuid: 424242, voicemail_created_at: '2025-13-45 99:00:00' });
    const run = await backfillOnce(testConfig(simulator, databasePath));
    expect(run.outcomes.every((outcome) => outcome.streams.every((stream) => stream.failure === undefined))).toBe(true);
    const database = new Database(databasePath, { readonly: true });
    const deadLetters = database.prepare('select business_id, stream, reason, raw from dead_letters order by reason').all() as Array<Record<string, string>>;
    database.close();
    expect(deadLetters).toHaveLength(2);
    expect(deadLetters.map((row) => [row.business_id, row.stream])).toEqual([
      ['biz-1', 'voicemails'],
      ['biz-1', 'voicemails'],
    ]);
    expect(deadLetters.map((row) => row.reason).join('\n')).toMatch(/uuid/);
    expect(deadLetters.map((row) => row.reason).join('\n')).toMatch(/voicemail_created_at/);
    expect(JSON.parse(deadLetters.find((row) => row.reason?.includes('voicemail_created_at'))?.raw ?? '{}')).toMatchObject({ uuid: 424242 });
    expectMirrorExact(databasePath, simulator, ['biz-1', 'biz-2', 'biz-3']);
  });
});
