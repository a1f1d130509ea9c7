import { startOrg } from '../integration/salesforce/harness.js';
import { describeTracedPath } from './path-suite.js';
import { tracedBackfill } from './traced-backfill.js';

// The org is the fake (test code, over loopback, not traced); the state store is SQLite, as by default.
describeTracedPath('salesforce', async () => {
  const org = await startOrg();
  try {
    return await tracedBackfill(org.sinkSection());
  } finally {
    await org.close();
  }
});
