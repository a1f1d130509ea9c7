import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { configDocument, testConfig } from '../support/backfill-harness.js';
import { runCli } from '../support/cli-process.js';
import { backfillInto, keyPair, startOrg, type FakeOrg } from './harness.js';

const STREAMS = ['numbers', 'calls', 'voicemails'];
let simulator: Simulator | undefined;
let org: FakeOrg | undefined;

afterEach(async () => {
  await simulator?.close();
  await org?.close();
  simulator = undefined;
  org = undefined;
});

async function start(orgOptions: Parameters<typeof startOrg>[0], calls = 900): Promise<{ simulator: Simulator; org: FakeOrg }> {
  simulator = await startSimulator({ businesses: 1, calls, voicemails: 100, numbers: 3, seed: 31, rateLimit: false });
  org = await startOrg(orgOptions);
  return { simulator, org };
}

function expectedTasks(sim: Simulator): number {
  const truth = sim.truth(sim.businesses[0]?.name ?? '');
  return truth.calls.length + truth.voicemails.length;
}

describe('Salesforce sessions and the API allocation during a backfill', () => {
  it('renews the session when Salesforce ends it mid-backfill and loses nothing', async () => {
    const { simulator: sim, org: target } = await start({});
    const config = testConfig(sim, '', { rateLimit: false, pageSize: 100, streams: STREAMS, sink: target.sinkSection() });
    // Sessions end mid-backfill, but only one that has served a data request since the last token:
    // ended on a timer, a loaded machine could end a token before its first use, which callsync
    // rightly reads as Salesforce refusing the new session at once.
    let servedAtLastEnd = 0;
    const ending = setInterval(() => {
      const log = target.fake.requests();
      const lastToken = log.findLastIndex((request) => request.path === '/services/oauth2/token');
      const usedSince = log.slice(lastToken + 1).filter((request) => request.status < 300).length;
      if (usedSince === 0 || log.length === servedAtLastEnd) return;
      servedAtLastEnd = log.length;
      target.fake.expireSessions();
    }, 150);
    let run;
    try {
      run = await backfillInto(config);
    } finally {
      clearInterval(ending);
    }
    expect(run.outcomes.flatMap((outcome) => outcome.streams).map((stream) => stream.failure)).toEqual([undefined, undefined, undefined]);
    expect(target.fake.requests().filter((request) => request.status === 401).length).toBeGreaterThan(0);
    expect(target.fake.tokensIssued().jwt).toBeGreaterThan(1);
    expect(new Set(target.fake.tasks().map((task) => task.fields.Callsync_Id__c)).size).toBe(expectedTasks(sim));
    expect(target.fake.tasks()).toHaveLength(expectedTasks(sim));
  });

  it('stops with one line naming sink.auth.privateKeyPath when the key is not the certificate’s', async () => {
    const { simulator: sim, org: target } = await start({}, 50);
    const wrongKey = join(target.dir, 'other.key');
    await writeFile(wrongKey, keyPair().privateKey);
    const section = target.sinkSection();
    const configPath = join(target.dir, 'callsync.json');
    const document = configDocument(sim, '', {
      rateLimit: false,
      streams: STREAMS,
      sink: { ...section, auth: { ...(section.auth as object), privateKeyPath: wrongKey } },
    });
    await writeFile(configPath, JSON.stringify(document));
    const cli = await runCli(['backfill', '--config', configPath, '--no-progress']);
    expect(cli.code).not.toBe(0);
    const errors = cli.stderr.split('\n').filter((line) => line.startsWith('error:'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/sink\.auth\.privateKeyPath/);
    expect(cli.stderr).not.toMatch(/BEGIN|PRIVATE KEY|\n\s+at /);
    expect(target.fake.tasks()).toHaveLength(0);
    expect(target.fake.requests().filter((request) => request.path.startsWith('/services/data/'))).toHaveLength(0);
  });

  it('with 4 of 500 requests left it pauses before REQUEST_LIMIT_EXCEEDED, says until when, and finishes after the window', async () => {
    const windowMs = 2000;
    const { simulator: sim, org: target } = await start({ dailyAllocation: 500, initialUsage: 496, allocationWindowMs: windowMs });
    const config = testConfig(sim, '', {
      rateLimit: false,
      streams: STREAMS,
      sink: target.sinkSection({ limits: { share: 1, windowSeconds: windowMs / 1000 } }),
    });
    const started = Date.now();
    const run = await backfillInto(config);
    const elapsed = Date.now() - started;
    expect(run.outcomes.flatMap((outcome) => outcome.streams).map((stream) => stream.failure)).toEqual([undefined, undefined, undefined]);
    expect(target.fake.refusedForAllocation()).toBe(0);
    expect(target.fake.tasks()).toHaveLength(expectedTasks(sim));
    const pauses = run.logs.filter((line) => line.includes('writing pauses until'));
    expect(pauses.length).toBeGreaterThan(0);
    const until = Date.parse(/writing pauses until (\S+)"/.exec(pauses[0] ?? '')?.[1] ?? '');
    expect(until).toBeGreaterThan(started);
    // The other integrations' 496 requests aged out one window after the fake counted them.
    expect(elapsed).toBeGreaterThanOrEqual(windowMs - 1000);
    const writes = target.fake
      .requests()
      .filter((request) => request.method === 'PATCH')
      .map((request) => request.at);
    expect(Math.max(...writes)).toBeGreaterThanOrEqual(until);
    expect(target.fake.requests().filter((request) => request.counted && request.at < until)).toHaveLength(4);
  });
});
