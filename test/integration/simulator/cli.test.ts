import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerSimulateCommand } from '../../../src/entry/cli/simulate.js';
import type { Simulator } from '../../../simulator/index.js';
import type { CallsPage } from './http.js';
import { request } from 'undici';
import { agent, call } from './http.js';

async function run(args: string[]): Promise<{ output: string; sim: Simulator }> {
  let output = '';
  let sim: Simulator | undefined;
  const program = new Command().exitOverride().configureOutput({ writeErr: () => undefined });
  registerSimulateCommand(program, { write: (t) => (output += t), onStarted: (s) => (sim = s), signals: [] });
  await program.parseAsync(['node', 'callsync', 'simulate', ...args]);
  if (sim === undefined) throw new Error('simulator did not start');
  return { output, sim };
}

describe('callsync simulate', () => {
  it('--json prints exactly one JSON line with URLs and credentials that work', async () => {
    const { output, sim } = await run(['--json', '--port', '0', '--businesses', '2', '--calls', '30', '--rate-limit', '7']);
    try {
      expect(output.endsWith('\n')).toBe(true);
      expect(output.trim().split('\n')).toHaveLength(1);
      const info = JSON.parse(output) as {
        baseUrl: string;
        v2BaseUrl: string;
        recordingsBaseUrl: string;
        businesses: { name: string; apiKey: string; v2Token: string; email: string; password: string }[];
      };
      expect(Object.keys(info)).toEqual(['baseUrl', 'v2BaseUrl', 'recordingsBaseUrl', 'businesses']);
      expect(info.businesses.map((b) => b.name)).toEqual(['biz-1', 'biz-2']);
      const res = await call<{ data: { total: number } }>(`${info.baseUrl}/api/v1/calls`, { token: info.businesses[1]!.apiKey });
      expect(res.body.data.total).toBe(30);
      expect(res.headers['x-ratelimit-limit']).toBe('7');
      const v2 = await call(`${info.v2BaseUrl}/api/all/calls`, { token: info.businesses[0]!.v2Token });
      expect(v2.status).toBe(200);
    } finally {
      await sim.close();
    }
  });

  it('prints a human summary without --json and honours --no-rate-limit and fault flags', async () => {
    const { output, sim } = await run(['--port', '0', '--businesses', '1', '--calls', '5', '--no-rate-limit', '--error-rate', '1']);
    try {
      expect(output).toContain(`${sim.baseUrl}/api/v1/`);
      expect(output).toContain('rate limit: off');
      expect(output).not.toContain('switches:');
      const res = await call(`${sim.baseUrl}/api/v1/calls`, { token: sim.businesses[0]!.apiKey });
      expect(res.status).toBe(500);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    } finally {
      await sim.close();
    }
  });

  it('--v1-order newest, --v2-limit-cap and --v2-fractional-uuid reach the simulator; an unknown order is refused', async () => {
    const args = ['--port', '0', '--businesses', '1', '--calls', '20', '--no-rate-limit', '--v1-order', 'newest', '--v2-limit-cap', '7'];
    const { sim } = await run([...args, '--v2-fractional-uuid']);
    try {
      const res = await call<{ data: { calls: { created_at: string }[] } }>(`${sim.baseUrl}/api/v1/calls?limit=20`, {
        token: sim.businesses[0]!.apiKey,
      });
      const created = res.body.data.calls.map((c) => c.created_at);
      expect(created[0]! > created[19]!).toBe(true);
      const v2 = await call<{ calls: unknown[] }>(`${sim.v2BaseUrl}/api/all/calls?limit=100`, { token: sim.businesses[0]!.v2Token });
      expect(v2.body.calls).toHaveLength(7);
      expect(sim.truth('biz-1').v2Calls.map((c) => c.id)).toContain('100000016.0000000001');
    } finally {
      await sim.close();
    }
    await expect(run(['--port', '0', '--v1-order', 'sideways'])).rejects.toThrow(/oldest or newest/);
  });

  it('--v1-limit-cap and the broken-paging flags reach the simulator', async () => {
    const args = ['--port', '0', '--businesses', '1', '--calls', '90', '--no-rate-limit', '--v1-limit-cap', '25'];
    const { sim, output } = await run([...args, '--stuck-cursor', '--negative-total', '--ignore-offset', '--empty-pages-forever']);
    try {
      expect(output).toContain('switches:   v1LimitCap=25, brokenPaging.stuckCursor=true,');
      const token = sim.businesses[0]!.apiKey;
      const first = await call<CallsPage>(`${sim.baseUrl}/api/v1/calls?limit=100`, { token });
      expect(first.body.data.calls).toHaveLength(25);
      expect(first.body.data.total).toBe(-1);
      const second = await call<CallsPage>(`${sim.baseUrl}/api/v1/calls?cursor=${first.body.data.next_cursor}`, { token });
      expect(second.body.data.next_cursor).toBe(first.body.data.next_cursor);
      const far = await call<CallsPage>(`${sim.baseUrl}/api/v1/calls?limit=10&offset=80`, { token });
      expect(far.body.data.calls[0]!.id).toBe(first.body.data.calls[0]!.id);
    } finally {
      await sim.close();
    }
    const cycling = await run(['--port', '0', '--businesses', '1', '--calls', '90', '--no-rate-limit', '--cycling-cursor']);
    try {
      const token = cycling.sim.businesses[0]!.apiKey;
      const url = `${cycling.sim.baseUrl}/api/v1/calls?limit=10`;
      const a = (await call<CallsPage>(url, { token })).body.data.next_cursor;
      const b = (await call<CallsPage>(`${url}&cursor=${a}`, { token })).body.data.next_cursor;
      const c = (await call<CallsPage>(`${url}&cursor=${b}`, { token })).body.data.next_cursor;
      const back = (await call<CallsPage>(`${url}&cursor=${c}`, { token })).body.data.calls;
      expect(back).toEqual((await call<CallsPage>(`${url}&cursor=${a}`, { token })).body.data.calls);
    } finally {
      await cycling.sim.close();
    }
  });

  it('the hostile and hostile-record flags reach the simulator', async () => {
    const args = ['--port', '0', '--businesses', '1', '--calls', '9', '--no-rate-limit', '--exhausted-until', '32503680000'];
    const { sim } = await run([...args, '--unavailable-requests', '1', '--unavailable-retry-after', '9', '--echo-credentials-at', '100']);
    try {
      const token = sim.businesses[0]!.apiKey;
      const down = await call(`${sim.baseUrl}/api/v1/calls`, { token });
      expect([down.status, down.headers['retry-after'], down.headers['x-ratelimit-reset']]).toEqual([503, '9', '32503680000']);
      const echoed = await call<{ error: { message: string } }>(`${sim.baseUrl}/api/v1/calls`, { token });
      expect(echoed.status).toBe(500);
      expect(echoed.body.error.message.indexOf(token)).toBe(100 + 'Authorization: Bearer '.length);
    } finally {
      await sim.close();
    }
    const other = await run([
      '--port',
      '0',
      '--businesses',
      '1',
      '--calls',
      '19',
      '--rate-limit',
      '1',
      '--retry-after-429',
      '999999999',
      '--huge-body-bytes',
      '5000',
      '--deep-record',
      '7',
      '--lone-surrogate-record',
      '--oversized-record-bytes',
      '999',
    ]);
    try {
      const token = other.sim.businesses[0]!.apiKey;
      const huge = await call(`${other.sim.baseUrl}/api/v1/calls`, { token });
      expect(huge.text).toHaveLength(5000);
      expect((await call(`${other.sim.baseUrl}/api/v1/calls`, { token })).headers['retry-after']).toBe('999999999');
      const truth = other.sim.truth('biz-1').calls.map((c) => c.raw as { custom_data?: unknown; transcription_text: string });
      expect(truth[10]!.custom_data).toEqual([[[[[[[]]]]]]]);
      expect(truth[11]!.transcription_text).toContain('\ud800');
      expect(truth[12]!.transcription_text).toHaveLength(999);
    } finally {
      await other.sim.close();
    }
  });

  it('rejects a probability above 1', async () => {
    await expect(run(['--port', '0', '--error-rate', '2'])).rejects.toThrow(/probability/);
  });

  it('serves the recordings it links to, at the size and on the port the recordings flags say', async () => {
    const { output, sim } = await run([
      '--port',
      '0',
      '--businesses',
      '1',
      '--calls',
      '10',
      '--no-rate-limit',
      '--recording-bytes',
      '5000',
      '--recordings-on-own-port',
    ]);
    try {
      expect(sim.recordingsBaseUrl).toBe(`${sim.recordingsHostUrl}/media`);
      expect(output).toContain(`recordings: ${sim.recordingsBaseUrl}/`);
      expect(output).toContain('recordings.size=5000');
      const page = await call<{ data: { calls: { recording_url: string | null }[] } }>(`${sim.baseUrl}/api/v1/calls?limit=10`, {
        token: sim.businesses[0]!.apiKey,
      });
      const link = page.body.data.calls.find((c) => c.recording_url !== null)!.recording_url!;
      const res = await request(link, { dispatcher: agent });
      expect([res.statusCode, res.headers['content-type'], (await res.body.arrayBuffer()).byteLength]).toEqual([200, 'audio/wav', 5000]);
    } finally {
      await sim.close();
    }
  });
});
