import { chmodSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSink } from '../../../connectors/registry.js';
import { freshSqlConfig } from '../../support/sql-store-fixtures.js';
import { builtinStreams } from '../../../src/source/streams/builtin-streams.js';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

// The usual umask: without the fix, SQLite creates the file 0644 under it.
let umask: number;
beforeEach(() => {
  umask = process.umask(0o022);
});
afterEach(() => {
  process.umask(umask);
});

const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);
const calls = builtinStreams.get('calls')!.table;

async function openWritten(path: string): Promise<() => Promise<void>> {
  const sink = await createSink({ type: 'sqlite', path }, { logger: pino({ level: 'silent' }) });
  await sink.prepare([calls]);
  await sink.checkpoints.save({ businessId: 'biz1', stream: 'calls', position: { cursor: 'a' }, recordsSynced: 0 });
  return () => sink.close();
}

describe('the SQLite sink file (phone numbers and transcripts)', () => {
  it('is created 0600, and its -wal and -shm with it', async () => {
    const config = await freshSqlConfig('sqlite', cleanups);
    if (config.type !== 'sqlite') throw new Error('sqlite');
    const close = await openWritten(config.path);
    try {
      expect(existsSync(`${config.path}-wal`)).toBe(true);
      expect([mode(config.path), mode(`${config.path}-wal`), mode(`${config.path}-shm`)]).toEqual(['600', '600', '600']);
    } finally {
      await close();
    }
  });

  it('keeps the mode of a file that already exists (an operator may share it on purpose)', async () => {
    const config = await freshSqlConfig('sqlite', cleanups);
    if (config.type !== 'sqlite') throw new Error('sqlite');
    const path = join(config.path, '..', 'shared.db');
    writeFileSync(path, '');
    chmodSync(path, 0o640);
    const close = await openWritten(path);
    try {
      expect([mode(path), mode(`${path}-wal`), mode(`${path}-shm`)]).toEqual(['640', '640', '640']);
    } finally {
      await close();
    }
  });
});
