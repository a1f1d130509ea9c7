import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeTracedPath } from './path-suite.js';
import { tracedBackfill } from './traced-backfill.js';

// A folder and its SQLite state store; every page is a file by itself, as by default.
describeTracedPath('parquet', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'callsync-path-parquet-'));
  try {
    return await tracedBackfill({
      type: 'parquet',
      storage: { type: 'folder', path: join(dir, 'lake') },
      state: { type: 'sqlite', path: join(dir, 'state.db') },
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
