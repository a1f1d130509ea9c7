import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/index.js';
import { configDocument } from '../integration/support/backfill-harness.js';
import { runCli } from '../integration/support/cli-process.js';
import { expectExact, figuresOf } from './support/figures.js';
import { recordRow } from './support/results.js';
import { SecretScanner } from './support/secret-scanner.js';
import { diffSqlite } from './support/sqlite-figures.js';

const scanner = new SecretScanner();
let simulator: Simulator | undefined;

async function start(seed: number): Promise<{ sim: Simulator; databasePath: string; configPath: string }> {
  const sim = await startSimulator({ businesses: 2, calls: 1_500, voicemails: 80, numbers: 4, seed, rateLimit: { limit: 100, windowMs: 1000 } });
  simulator = sim;
  scanner.addSimulator(sim);
  const directory = mkdtempSync(join(tmpdir(), 'callsync-chaos-records-'));
  const databasePath = join(directory, 'records.db');
  const configPath = join(directory, 'callsync.json');
  writeFileSync(configPath, JSON.stringify(configDocument(sim, databasePath, { pageSize: 100, rateLimit: { requests: 100, perMs: 1000 }, logLevel: 'info' })));
  return { sim, databasePath, configPath };
}

afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
});

const VALID = {
  voicemail_to_number: '+13128475186',
  voicemail_from_number: '+12154550321',
  voicemail_transcription_text: 'Please call me back.',
  voicemail_transcription_summary: null,
  voicemail_recording_type: 'voicemail',
  voicemail_recording_url: '/user-x/recordings/ivr-1/RE1.wav',
  voicemail_api_recording_url: 'https://api.telephony.example/RE1.wav',
  voicemail_duration: '00:00:42',
  voicemail_created_at: '2025-06-02 10:00:00',
};

/** Contract breakers, each with the field its dead letter's reason must name. */
const BREAKERS: ReadonlyArray<{ what: string; field: string; raw: Record<string, unknown> }> = [
  { what: 'missing id', field: 'uuid', raw: { ...VALID } },
  { what: 'unparseable time', field: 'voicemail_created_at', raw: { ...VALID, uuid: 990_000_001, voicemail_created_at: '2025-13-45 99:00:00' } },
  { what: 'unparseable duration', field: 'voicemail_duration', raw: { ...VALID, uuid: 990_000_002, voicemail_duration: 'about a minute' } },
  { what: 'non-E.164 number', field: 'voicemail_from_number', raw: { ...VALID, uuid: 990_000_003, voicemail_from_number: 'call me maybe' } },
  { what: 'uuid as an object', field: 'uuid', raw: { ...VALID, uuid: { value: 990_000_004 } } },
  { what: 'text over 1 MB', field: 'voicemail_transcription_text', raw: { ...VALID, uuid: 990_000_005, voicemail_transcription_text: 'x'.repeat(1_100_000) } },
];

interface ListedDeadLetter {
  readonly businessId: string;
  readonly stream: string;
  readonly reason: string;
}

describe('scenario 9: upstream records that break the contract', () => {
  it('become dead letters naming the field; the rest is stored exactly; `dead-letters list` shows them', async () => {
    const { sim, databasePath, configPath } = await start(909);
    for (const breaker of BREAKERS) sim.addRawVoicemail('biz-2', breaker.raw);
    const run = await runCli(['backfill', '--config', configPath, '--no-progress']);
    scanner.collect('backfill stdout', run.stdout);
    scanner.collect('backfill stderr', run.stderr);
    expect(run.code, run.stderr).toBe(0);
    const listed = await runCli(['dead-letters', 'list', '--config', configPath, '--json']);
    const table = await runCli(['dead-letters', 'list', '--config', configPath]);
    for (const [label, text] of [
      ['list json', listed.stdout],
      ['list table', table.stdout],
      ['list stderr', listed.stderr + table.stderr],
    ] as const)
      scanner.collect(label, text);
    scanner.collectSqlite('sink', databasePath);
    expect(listed.code, listed.stderr).toBe(0);
    expect(table.code, table.stderr).toBe(0);
    const letters = JSON.parse(listed.stdout) as ListedDeadLetter[];
    const diffs = diffSqlite(databasePath, sim);
    recordRow({
      scenario: '9 contract-breaking records',
      faults: { badRecord: BREAKERS.length },
      restarts: 0,
      ...figuresOf(diffs),
      note: `${letters.length} dead letters`,
    });
    expect(letters).toHaveLength(BREAKERS.length);
    expect(letters.every((letter) => letter.businessId === 'biz-2' && letter.stream === 'voicemails')).toBe(true);
    for (const breaker of BREAKERS) {
      expect(
        letters.some((letter) => letter.reason.includes(breaker.field)),
        `${breaker.what}: a reason naming ${breaker.field} in ${JSON.stringify(letters.map((l) => l.reason))}`,
      ).toBe(true);
    }
    expect(table.stdout).toContain('biz-2');
    expect(table.stdout).toContain('voicemail_duration');
    expectExact(diffs);
  });

  it('retries 200 answers whose body is not JSON (20% of them) and ends exact', async () => {
    const { sim, databasePath, configPath } = await start(919);
    sim.setFaults({ badJsonRate: 0.2 });
    const run = await runCli(['backfill', '--config', configPath, '--no-progress']);
    scanner.collect('backfill stdout', run.stdout);
    scanner.collect('backfill stderr', run.stderr);
    scanner.collectSqlite('sink', databasePath);
    const { faults } = sim.counters();
    const diffs = diffSqlite(databasePath, sim);
    recordRow({ scenario: '9 non-JSON 200 bodies', faults: { badJson: faults.badJson }, restarts: 0, ...figuresOf(diffs) });
    expect(run.code, run.stderr).toBe(0);
    expect(faults.badJson).toBeGreaterThan(0);
    expectExact(diffs);
  });

  it('leaks no secret in anything it saw', () => {
    expect(scanner.record('bad-records').leaks).toEqual([]);
  });
});
