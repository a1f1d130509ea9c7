import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { testConfig } from '../support/backfill-harness.js';
import { backfillInto, startOrg, type FakeOrg } from './harness.js';

const STREAMS = ['numbers', 'calls', 'voicemails'];

describe('Salesforce backfill run again after its state store was lost', () => {
  let simulator: Simulator;
  let org: FakeOrg;
  afterAll(async () => {
    await simulator.close();
    await org.close();
  });

  // Every record then goes as an upsert that matches an existing Task: an update, which the org
  // refuses for TaskSubtype (createable, not updateable), as for a crash between Salesforce's
  // answer and the state commit, a dead-letter replay, or a call changed upstream.
  it('updates every Task (TaskSubtype only on create) with no dead letter and no second Task', async () => {
    simulator = await startSimulator({ businesses: 1, calls: 300, voicemails: 24, numbers: 3, seed: 30, rateLimit: false });
    org = await startOrg();
    const config = testConfig(simulator, '', { rateLimit: false, streams: STREAMS, sink: org.sinkSection() });

    const first = await backfillInto(config);
    const created = org.fake.tasks();
    expect(created).toHaveLength(324);
    expect(first.outcomes.flatMap((outcome) => outcome.streams).map((stream) => stream.failure)).toEqual([undefined, undefined, undefined]);

    for (const file of await readdir(org.dir)) if (file.startsWith('state.db')) await rm(join(org.dir, file));
    const again = await backfillInto(config);

    const streams = again.outcomes.flatMap((outcome) => outcome.streams);
    expect(streams.map((stream) => stream.failure)).toEqual([undefined, undefined, undefined]);
    expect(streams.reduce((sum, stream) => sum + (stream.result?.deadLettered ?? 0), 0)).toBe(0);
    const tasks = org.fake.tasks();
    expect(tasks.map((task) => task.Id).sort()).toEqual(created.map((task) => task.Id).sort());
    expect(tasks.filter((task) => task.updates === 1)).toHaveLength(324);
    expect(tasks.every((task) => task.fields.TaskSubtype === 'Call')).toBe(true);
  });
});
