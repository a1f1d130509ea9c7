import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeHubSpot } from '../fakes/hubspot/index.js';
import { describeTracedPath } from './path-suite.js';
import { tracedBackfill } from './traced-backfill.js';

// The portal is the fake (test code, over loopback, not traced); the state store is SQLite, as by default.
describeTracedPath('hubspot', async () => {
  const [fake, dir] = await Promise.all([startFakeHubSpot(), mkdtemp(join(tmpdir(), 'callsync-path-hubspot-'))]);
  try {
    return await tracedBackfill({ type: 'hubspot', token: fake.token, baseUrl: fake.baseUrl, state: { type: 'sqlite', path: join(dir, 'state.db') } });
  } finally {
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  }
});
