import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../simulator/index.js';
import { cliCommand } from '../integration/support/cli-process.js';
import { cleanupSteps } from '../integration/support/cleanup-steps.js';
import { freePort } from '../support/free-port.js';
import { PrivateRedis } from './support/private-redis.js';
import { chaosRunConfig, readReadiness, waitFor, workspace } from './support/run-harness.js';

const cleanup = cleanupSteps();

/** The lines of `text` that are not one JSON object each (a stack trace printed to the console, say). */
function notJson(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .filter((line) => {
      try {
        const value: unknown = JSON.parse(line);
        return typeof value !== 'object' || value === null || Array.isArray(value);
      } catch {
        return true;
      }
    });
}

describe('a `run` worker while its Redis is away', () => {
  it('writes every line as one JSON object, and says the outage in a few throttled lines', async () => {
    const redis = new PrivateRedis(await freePort());
    cleanup.push(() => redis.stop());
    await redis.start();
    const simulator = await startSimulator({ businesses: 1, calls: 200, voicemails: 5, numbers: 2, seed: 47, rateLimit: false });
    cleanup.push(() => simulator.close());
    const ws = workspace('redis-outage-logs');
    cleanup.push(() => ws.cleanup());
    const configPath = ws.writeConfig(chaosRunConfig(simulator, { prefix: ws.prefix, dbPath: ws.dbPath, redisUrl: redis.url, every: '1s' }));

    const child = spawn(...cliCommand(['run', '--config', configPath]), { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    cleanup.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    });
    let stderr = '';
    let stdout = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const url = await waitFor('the status server', () => /"url":"(http:[^"]+)"[^\n]*"msg":"status server listening"/.exec(stderr)?.[1], 60_000);
    await waitFor('the worker to start', () => (stderr.includes('"msg":"worker started"') ? true : undefined), 60_000);

    await redis.stop();
    await waitFor('/readyz to name redis', async () => ((await readReadiness(url)).failing.includes('redis') ? true : undefined), 30_000, 250);
    // Every connection has failed and retried by now: the worker's queue, its blocking connection and the shared clients.
    await waitFor('the outage to be logged', () => (stderr.includes('redis unavailable; retrying') ? true : undefined), 30_000, 250);
    await redis.start();
    await waitFor('/readyz to be 200 again', async () => ((await readReadiness(url)).status === 200 ? true : undefined), 30_000, 250);
    const back = stderr.length;
    await waitFor('a poll after the outage', () => (stderr.slice(back).includes('"msg":"sync done"') ? true : undefined), 60_000, 250);
    child.kill('SIGTERM');
    await exited;

    expect(notJson(stderr)).toEqual([]);
    expect(notJson(stdout)).toEqual([]);
    expect(stderr).toContain('"msg":"redis reachable again"');
    // One line opens the outage for each connection that saw it first, then repeats wait 30 s.
    const outageLines = stderr.split('\n').filter((line) => line.includes('redis unavailable; retrying') || line.includes(' error"'));
    expect(outageLines.length).toBeLessThanOrEqual(3);
  });
});
