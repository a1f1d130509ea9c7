import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/index.js';
import { configDocument } from '../integration/support/backfill-harness.js';
import { runCli } from '../integration/support/cli-process.js';
import { readSqliteTable } from '../integration/support/sqlite-mirror.js';
import { expectExact, figuresOf } from './support/figures.js';
import { recordRow } from './support/results.js';
import { SecretScanner } from './support/secret-scanner.js';
import { diffSqlite } from './support/sqlite-figures.js';

const scanner = new SecretScanner();
let simulator: Simulator;
let directory: string;

beforeAll(async () => {
  simulator = await startSimulator({ businesses: 2, calls: 2_000, voicemails: 40, numbers: 3, seed: 707, rateLimit: { limit: 100, windowMs: 1000 } });
  scanner.addSimulator(simulator);
  directory = mkdtempSync(join(tmpdir(), 'callsync-chaos-late-'));
});

afterAll(async () => {
  await simulator.close();
});

describe('scenario 7: late-arriving and updated records', () => {
  it('stores a call whose transcription appears later in its latest form', async () => {
    const databasePath = join(directory, 'late.db');
    const configPath = join(directory, 'callsync.json');
    writeFileSync(
      configPath,
      JSON.stringify(
        configDocument(simulator, databasePath, {
          pageSize: 100,
          rateLimit: { requests: 100, perMs: 1000 },
          revisit: { window: '1h', every: 1 },
          logLevel: 'info',
        }),
      ),
    );
    const backfill = async (label: string) => {
      const run = await runCli(['backfill', '--config', configPath, '--no-progress']);
      scanner.collect(`${label} stdout`, run.stdout);
      scanner.collect(`${label} stderr`, run.stderr);
      expect(run.code, run.stderr).toBe(0);
    };
    await backfill('history');
    for (const business of simulator.businesses) simulator.addCalls(business.name, 230);
    await backfill('arrivals');
    // Transcriptions appear after the calls were stored: one per business, plus a second change to one of them.
    const changed = simulator.businesses.map((business, index) => {
      const call = simulator.truth(business.name).calls.at(-(20 + index * 100));
      if (call === undefined) throw new Error('no recent call');
      simulator.updateCallTranscription(business.name, call.id, `First transcription for ${business.name}.`);
      return { business: business.name, id: call.id };
    });
    simulator.updateCallTranscription(changed[0]!.business, changed[0]!.id, 'Corrected transcription: the caller wants a quote.');
    for (const business of simulator.businesses) simulator.addCalls(business.name, 30);
    await backfill('revisit');
    scanner.collectSqlite('sink', databasePath);
    const diffs = diffSqlite(databasePath, simulator);
    recordRow({ scenario: '7 late transcriptions', faults: { lateUpdate: changed.length + 1 }, restarts: 2, ...figuresOf(diffs) });
    const stored = (business: string, id: string) => readSqliteTable(databasePath, 'calls', business).find((row) => row.id === id);
    expect(stored(changed[0]!.business, changed[0]!.id)?.fields.transcription_text).toBe('Corrected transcription: the caller wants a quote.');
    expect(stored(changed[1]!.business, changed[1]!.id)?.fields.transcription_text).toBe(`First transcription for ${changed[1]!.business}.`);
    // The whole mirror, raw and updated_at included, equals the latest truth.
    expectExact(diffs);
  });

  it('leaks no secret in anything it saw', () => {
    expect(scanner.record('late-updates').leaks).toEqual([]);
  });
});
