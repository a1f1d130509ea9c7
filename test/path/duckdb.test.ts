import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeTracedPath } from './path-suite.js';
import { PAGE_SIZE, tracedBackfill } from './traced-backfill.js';

describeTracedPath('duckdb', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'callsync-path-duckdb-'));
  try {
    // Flushes of one page (DuckDB's default gathers 1,000 records): each cut is one page's whole path.
    return await tracedBackfill({ type: 'duckdb', path: join(dir, 'calls.duckdb'), flush: { maxRows: PAGE_SIZE } });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
