import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeTracedPath } from './path-suite.js';
import { tracedBackfill } from './traced-backfill.js';

describeTracedPath('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'callsync-path-sqlite-'));
  try {
    return await tracedBackfill({ type: 'sqlite', path: join(dir, 'calls.db') });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
