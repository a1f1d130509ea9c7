import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSink } from '../../../connectors/registry.js';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { builtinStreams } from '../../../src/source/streams/builtin-streams.js';
import { configDocument } from '../support/backfill-harness.js';
import { runCli } from '../support/cli-process.js';
import { readSqliteTable } from '../support/sqlite-mirror.js';

describe('callsync dead-letters list | show | replay', () => {
  let simulator: Simulator;
  let configPath: string;
  let databasePath: string;
  const fixable = {
    uuid: 777_000_001,
    voicemail_to_number: '+14155550100',
    voicemail_from_number: '+12125550199',
    voicemail_transcription_text: 'call me back',
    voicemail_transcription_summary: null,
    voicemail_recording_type: 'voicemail',
    voicemail_recording_url: '/u1/recordings/ivr/RE1.wav',
    voicemail_api_recording_url: 'https://api.telephony.example/RE1.wav',
    voicemail_duration: '00:00:42',
    voicemail_created_at: '2025-06-02 10:00:00',
  };

  beforeAll(async () => {
    simulator = await startSimulator({ businesses: 1, calls: 50, voicemails: 10, numbers: 2, seed: 9, rateLimit: false });
    const directory = mkdtempSync(join(tmpdir(), 'callsync-dl-'));
    databasePath = join(directory, 'dl.db');
    configPath = join(directory, 'callsync.json');
    writeFileSync(configPath, JSON.stringify(configDocument(simulator, databasePath, { rateLimit: false })));
    simulator.addRawVoicemail('biz-1', { uuid: 777_000_002, voicemail_created_at: 'yesterday' });
    expect((await runCli(['backfill', '--config', configPath, '--no-progress'])).code).toBe(0);
    // A dead letter left by an older release whose normalizer has since been fixed.
    const sink = await createSink({ type: 'sqlite', path: databasePath }, { logger: pino({ level: 'silent' }) });
    const table = builtinStreams.get('voicemails')?.table;
    if (table === undefined) throw new Error('voicemails stream missing');
    const checkpoint = await sink.checkpoints.load('biz-1', 'voicemails');
    await sink.write(
      {
        businessId: 'biz-1',
        table,
        records: [],
        deadLetters: [{ businessId: 'biz-1', stream: 'voicemails', reason: 'old release: bad duration', raw: fixable }],
      },
      checkpoint?.position ?? {},
    );
    await sink.close();
  });

  afterAll(async () => {
    await simulator.close();
  });

  it('lists both with their reasons and shows one whole', async () => {
    const listed = await runCli(['dead-letters', 'list', '--config', configPath, '--json']);
    const letters = JSON.parse(listed.stdout) as Array<{ id: number; reason: string; raw: { uuid: number } }>;
    expect(letters.map((letter) => letter.raw.uuid).sort()).toEqual([777_000_001, 777_000_002]);
    expect(letters.find((letter) => letter.raw.uuid === 777_000_002)?.reason).toMatch(/voicemail_created_at/);
    const shown = await runCli(['dead-letters', 'show', String(letters[0]?.id), '--config', configPath]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: letters[0]?.id, stream: 'voicemails' });
  });

  it('replay stores the one that now normalizes, removes it, and keeps the other', async () => {
    const replayed = await runCli(['dead-letters', 'replay', '--config', configPath]);
    expect(replayed.stdout).toContain('1 of 2 stored');
    expect(replayed.code).toBe(1);
    const stored = readSqliteTable(databasePath, 'voicemails', 'biz-1').find((row) => row.id === '777000001');
    expect(stored?.fields).toMatchObject({
      duration_seconds: 42,
      created_at: '2025-06-02T10:00:00Z',
      recording_url: `${simulator.recordingsBaseUrl}/u1/recordings/ivr/RE1.wav`,
    });
    const remaining = JSON.parse((await runCli(['dead-letters', 'list', '--config', configPath, '--json'])).stdout) as Array<{
      attempts: number;
      raw: { uuid: number };
    }>;
    expect(remaining.map((letter) => [letter.raw.uuid, letter.attempts])).toEqual([[777_000_002, 2]]);
  });

  it('says "no dead letters" when none match, with no log line and no empty header', async () => {
    const listed = await runCli(['dead-letters', 'list', '--config', configPath, '--stream', 'numbers']);
    expect(listed.stdout).toBe('no dead letters\n');
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
  });
});
