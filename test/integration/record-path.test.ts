import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSink, type SinkConfig } from '../../connectors/registry.js';
import { silentLogger } from '../support/silent-logger.js';
import { backfillCalls, readmePath, traceRecordPath } from './support/record-path-coverage.js';

describe('the record path', () => {
  let dir: string;
  beforeAll(async () => void (dir = await mkdtemp(join(tmpdir(), 'callsync-record-path-'))));
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('crosses the files docs/architecture.md lists, and no more', async () => {
    const traced = await traceRecordPath((upstream, run) => {
      const sinkConfig: SinkConfig = { type: 'sqlite', path: join(dir, `${run}.db`) };
      return backfillCalls(upstream, sinkConfig, (config) => createSink(config, { logger: silentLogger() }));
    });
    expect(traced).toContain('src/engine/sync/sync-stream.ts');
    expect(traced).toEqual([...readmePath('record-path')].sort());
  });
});
