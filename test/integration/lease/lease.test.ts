import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { LeaseGroup } from '../../../src/engine/lease/lease.js';
import { StreamLeases } from '../../../src/engine/lease/stream-lease.js';
import { redisUrl, uniqueName } from '../services.js';

const redis = new Redis(redisUrl);
const prefix = uniqueName('lease');
const key = (name: string): string => `${prefix}:lock:${name}`;

afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

async function waitFor(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

describe('LeaseGroup', () => {
  it('gives each key one holder: a second holder gets only the free keys and reads who has the others', async () => {
    const first = new LeaseGroup({ redis, ttlMs: 5_000, onLost: () => undefined, token: 'first' });
    const second = new LeaseGroup({ redis, ttlMs: 5_000, onLost: () => undefined, token: 'second' });
    expect(await first.take([key('a'), key('b')])).toEqual(new Map());
    const busy = await second.take([key('a'), key('b'), key('c')]);
    expect(busy).toEqual(
      new Map([
        [key('a'), 'first'],
        [key('b'), 'first'],
      ]),
    );
    expect(second.held).toEqual([key('c')]);
    // Releasing a key it never had frees nothing of the first holder's.
    await second.release([key('a'), key('c')]);
    expect(await redis.mget(key('a'), key('b'), key('c'))).toEqual(['first', 'first', null]);
    await first.release([key('a')]);
    expect(first.held).toEqual([key('b')]);
    await first.release();
    await first.release();
    expect(await redis.exists(key('a'), key('b'))).toBe(0);
  });

  it('renews held keys past their expiry and says which one was lost', async () => {
    const lost: string[] = [];
    const group = new LeaseGroup({ redis, ttlMs: 600, onLost: (k) => lost.push(k), token: 'renewer' });
    await group.take([key('r1'), key('r2')]);
    await new Promise((done) => setTimeout(done, 1_500));
    expect(await redis.mget(key('r1'), key('r2'))).toEqual(['renewer', 'renewer']);
    await redis.set(key('r2'), 'someone else');
    await waitFor('the lost key to be reported', () => lost.length > 0);
    expect(lost).toEqual([key('r2')]);
    expect(group.held).toEqual([key('r1')]);
    await group.release();
    expect(await redis.get(key('r2'))).toBe('someone else');
  });
  it('renews and frees more keys than one script chunk, never a key another holder took meanwhile', async () => {
    const keys = Array.from({ length: 1_203 }, (_, i) => key(`many-${i}`));
    const lost: string[] = [];
    const group = new LeaseGroup({ redis, ttlMs: 3_000, onLost: (k) => lost.push(k), token: 'many' });
    expect(await group.take(keys)).toEqual(new Map());
    // A renewal reads every chunk: it finds each key another holder took.
    const taken = [key('many-7'), key('many-700'), key('many-1202')];
    for (const k of taken) await redis.set(k, 'someone else');
    await waitFor('the three lost keys to be reported', () => lost.length === taken.length);
    expect(lost.sort()).toEqual([...taken].sort());
    expect(await redis.pttl(key('many-1201'))).toBeGreaterThan(0);
    expect(await redis.exists(...keys)).toBe(keys.length);
    await redis.del(key('many-3'));
    await redis.set(key('many-3'), 'a third holder');
    await group.release();
    const left = await redis.mget(...keys);
    expect(left.filter((value) => value !== null).sort()).toEqual(['a third holder', 'someone else', 'someone else', 'someone else']);
  });
});

describe('StreamLeases', () => {
  it('names a live holder, and takes over at once from a holder on this host whose process is gone', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const gone = { id: 'x', host: hostname(), pid: Number(dead.stdout), command: 'backfill', since: '2026-11-25T00:00:00.000Z' };
    await redis.set(key('gone'), JSON.stringify(gone), 'PX', 60_000);
    const live = new StreamLeases({ redis, ttlMs: 5_000, command: 'run', onLost: () => undefined });
    expect(await live.take([key('live')])).toEqual(new Map());
    const other = new StreamLeases({ redis, ttlMs: 5_000, command: 'backfill', onLost: () => undefined });
    const busy = await other.take([key('live'), key('gone')]);
    expect([...busy.keys()]).toEqual([key('live')]);
    expect(busy.get(key('live'))).toMatchObject({ command: 'run', pid: process.pid, host: hostname() });
    expect(other.held).toEqual([key('gone')]);
    await Promise.all([live.release(), other.release()]);
  });

  it('takes over at once from a holder whose process is a zombie its parent has not reaped', async () => {
    // The shell forks a child, then becomes `sleep`, which never reaps it; the child is killed only
    // then (a child that ended before the exec could be reaped by the shell).
    const parent = spawn('sh', ['-c', 'sleep 60 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      let out = '';
      parent.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      await waitFor('the child pid', () => out.includes('\n'));
      const pid = Number(out.trim());
      await waitFor('the shell to become sleep', () => readFileSync(`/proc/${String(parent.pid)}/cmdline`, 'latin1').startsWith('sleep\0'));
      process.kill(pid, 'SIGKILL');
      const state = (): string => readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1]?.[0] ?? '';
      await waitFor('the child to be a zombie', () => state() === 'Z');
      const zombie = { id: 'z', host: hostname(), pid, command: 'backfill', since: '2026-11-25T00:00:00.000Z' };
      await redis.set(key('zombie'), JSON.stringify(zombie), 'PX', 60_000);
      const taker = new StreamLeases({ redis, ttlMs: 5_000, command: 'backfill', onLost: () => undefined });
      expect(await taker.take([key('zombie')])).toEqual(new Map());
      expect(taker.held).toEqual([key('zombie')]);
      await taker.release();
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('takes over from a holder whose pid now belongs to another process (a different start), not from the one that started then', async () => {
    const first = new StreamLeases({ redis, ttlMs: 5_000, command: 'run', onLost: () => undefined });
    await first.take([key('same-start')]);
    const recorded = JSON.parse((await redis.get(key('same-start'))) ?? '{}') as { start?: string };
    expect(recorded.start).toMatch(/^proc:\d+$/);
    // This process's pid, as if an earlier process that had it held the lease and died.
    const reused = { id: 'r', host: hostname(), pid: process.pid, command: 'backfill', since: '2026-11-25T00:00:00.000Z', start: 'proc:1' };
    await redis.set(key('reused'), JSON.stringify(reused), 'PX', 60_000);
    const taker = new StreamLeases({ redis, ttlMs: 5_000, command: 'backfill', onLost: () => undefined });
    const busy = await taker.take([key('reused'), key('same-start')]);
    expect([...busy.keys()]).toEqual([key('same-start')]);
    expect(taker.held).toEqual([key('reused')]);
    await Promise.all([first.release(), taker.release()]);
  });
});
