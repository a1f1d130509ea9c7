import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../../simulator/index.js';
import { postgresUrl, uniqueName } from '../services.js';
import { spawnRun, stopAll, waitFor, workspace, type RunProcess } from '../worker/harness.js';
import { hooksRunConfig, metricValue, SECRETS } from './run-hooks.js';
import { cleanupSteps } from '../support/cleanup-steps.js';

describe('callsync run with webhooks into Postgres', () => {
  const cleanup = cleanupSteps();

  it('stores a new call and a new voicemail through their webhooks, with the schedule an hour away', async () => {
    const schema = uniqueName('hookpg');
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    const sim = await startSimulator({ businesses: 1, calls: 20, voicemails: 3, numbers: 2, rateLimit: { limit: 60, windowMs: 1000 } });
    const ws = workspace('hookpg');
    const processes: RunProcess[] = [];
    cleanup.push(
      async () => {
        await client.query(`drop schema if exists "${schema}" cascade`);
        await client.end();
      },
      () => sim.close(),
      () => ws.cleanup(),
      () => stopAll(processes),
    );
    const sink = { type: 'postgres', url: postgresUrl, schema };
    processes.push(spawnRun(ws.writeConfig(hooksRunConfig(sim, { prefix: ws.prefix, dbPath: ws.dbPath, every: '1h', sink }))));
    const url = await processes[0]!.url;
    sim.setWebhooks({ url: `${url}/hooks`, secret: SECRETS });
    const has = async (table: string, id: string): Promise<boolean> => {
      const found = await client.query(`select 1 from "${schema}"."${table}" where business_id = $1 and id = $2`, ['biz-1', id]).catch(() => undefined);
      return (found?.rowCount ?? 0) > 0;
    };
    await waitFor('the history', async () => ((await has('calls', sim.truth('biz-1').calls.at(-1)!.id)) ? true : undefined));
    await waitFor('the first syncs to end', async () =>
      (await metricValue(url, 'callsync_sync_runs_total', { trigger: 'schedule' })) >= 3 ? true : undefined,
    );

    const scheduleWritten = await metricValue(url, 'callsync_sync_records_written_total', { trigger: 'schedule' });
    sim.addCalls('biz-1', 1);
    sim.addVoicemails('biz-1', 1);
    const call = sim.truth('biz-1').calls.at(-1)!.id;
    const voicemail = sim.truth('biz-1').voicemails.at(-1)!.id;
    await waitFor(`call ${call}`, async () => ((await has('calls', call)) ? true : undefined), 30_000, 50);
    await waitFor(`voicemail ${voicemail}`, async () => ((await has('voicemails', voicemail)) ? true : undefined), 30_000, 50);
    // The rows are stored before the run ends and counts them.
    await waitFor(
      'the webhook runs to count their records',
      async () => ((await metricValue(url, 'callsync_sync_records_written_total', { trigger: 'webhook' })) >= 2 ? true : undefined),
      30_000,
    );
    // Which path delivered: the schedule's runs wrote nothing since (a poll after the webhook finds nothing new).
    expect(await metricValue(url, 'callsync_sync_records_written_total', { trigger: 'schedule' })).toBe(scheduleWritten);
  });
});
