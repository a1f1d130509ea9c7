import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { configDocument } from '../support/backfill-harness.js';
import { runCli } from '../support/cli-process.js';

/** Every 8-character piece of `secret` found in `text`. */
function fragmentsIn(text: string, secret: string): string[] {
  const found: string[] = [];
  for (let index = 0; index + 8 <= secret.length; index += 1) {
    const piece = secret.slice(index, index + 8);
    if (text.includes(piece)) found.push(piece);
  }
  return found;
}

describe('an upstream that echoes the credential in its error text', () => {
  let simulator: Simulator;
  let directory: string;

  beforeAll(async () => {
    simulator = await startSimulator({ businesses: 1, calls: 50, voicemails: 2, numbers: 1, seed: 11 });
    directory = mkdtempSync(join(tmpdir(), 'callsync-echo-'));
  });

  afterAll(async () => {
    await simulator.close();
  });

  // At the start, with the key itself straddling the 200-character cut (150, 165: the header is 22 characters), the header straddling it, and far past it.
  it.each([0, 150, 165, 190, 420])(
    'leaves no 8-character piece of the key in any output of backfill or dead-letters when echoed at character %i',
    async (at) => {
      const apiKey = simulator.businesses[0]?.apiKey ?? '';
      expect(apiKey.length).toBeGreaterThan(20);
      const dbPath = join(directory, `echo-${at}.db`);
      const configPath = join(directory, `echo-${at}.json`);
      writeFileSync(configPath, JSON.stringify(configDocument(simulator, dbPath, { logLevel: 'info' })));
      const echoedBefore = simulator.counters().faults.echoedCredentials;
      simulator.setHostile({ echoCredentials: { status: 400, at, length: 600 } });
      let outputs: string;
      try {
        const backfill = await runCli(['backfill', '--config', configPath, '--stream', 'calls', '--no-progress', '--verbose']);
        expect(backfill.code).toBe(1);
        const deadLetters = await runCli(['dead-letters', 'list', '--config', configPath]);
        outputs = [backfill.stdout, backfill.stderr, deadLetters.stdout, deadLetters.stderr].join('\n');
      } finally {
        simulator.setHostile({ echoCredentials: null });
      }
      // The server really echoed the key, so the scan below can fail.
      expect(simulator.counters().faults.echoedCredentials).toBeGreaterThan(echoedBefore);
      expect(outputs).toMatch(/HTTP 400|BAD_REQUEST|400/);
      expect(fragmentsIn(outputs, apiKey)).toEqual([]);
    },
  );
});
