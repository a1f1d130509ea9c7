import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/index.js';
import { configDocument } from '../integration/support/backfill-harness.js';
import { runCli } from '../integration/support/cli-process.js';
import { expectExact, figuresOf } from './support/figures.js';
import { recordRow } from './support/results.js';
import { SecretScanner } from './support/secret-scanner.js';
import { diffSqlite } from './support/sqlite-figures.js';

const BUSINESSES = 12;
/** Every third business logs in with email and password instead of an API key. */
const usesSession = (index: number): boolean => index % 3 === 2;
const scanner = new SecretScanner();
let simulator: Simulator;
let directory: string;

beforeAll(async () => {
  simulator = await startSimulator({ businesses: BUSINESSES, calls: 1_000, voicemails: 40, numbers: 3, seed: 1111, rateLimit: { limit: 100, windowMs: 1000 } });
  scanner.addSimulator(simulator);
  directory = mkdtempSync(join(tmpdir(), 'callsync-chaos-isolation-'));
});

afterAll(async () => {
  await simulator.close();
});

describe('scenario 11: twelve businesses in one backfill, four of them with session auth', () => {
  it('stores every record under its own business and sends each credential only for its own business', async () => {
    const databasePath = join(directory, 'isolation.db');
    const configPath = join(directory, 'callsync.json');
    const document = configDocument(simulator, databasePath, { pageSize: 100, rateLimit: { requests: 100, perMs: 1000 }, concurrency: 12, logLevel: 'info' });
    const businesses = document.businesses.map((business, index) => {
      if (!usesSession(index)) return business;
      const credentials = simulator.businesses[index]!;
      return {
        name: business.name,
        session: { email: credentials.email, password: credentials.password },
        v2Token: business.v2Token,
        streams: business.streams,
      };
    });
    writeFileSync(configPath, JSON.stringify({ ...document, businesses }));
    const run = await runCli(['backfill', '--config', configPath, '--no-progress']);
    scanner.collect('backfill stdout', run.stdout);
    scanner.collect('backfill stderr', run.stderr);
    scanner.collectSqlite('sink', databasePath);
    const diffs = diffSqlite(databasePath, simulator);
    const counters = simulator.counters();
    recordRow({
      scenario: '11 isolation, 12 businesses',
      faults: {},
      restarts: 0,
      ...figuresOf(diffs),
      note: `${businesses.filter((_, i) => usesSession(i)).length} on session auth`,
    });
    expect(run.code, run.stderr).toBe(0);
    // diffMirror compares each business's rows with that business's truth: raw included, nothing extra.
    expectExact(diffs);
    expect(counters.unauthenticated).toBe(0);
    const perBusiness = simulator.businesses.map((business, index) => ({ index, ...counters.businesses[business.name]! }));
    // All businesses have the same data sizes, so a credential used for another business's requests
    // would skew these counts: each credential carried exactly its own business's walk.
    const keyed = perBusiness.filter((b) => !usesSession(b.index));
    const session = perBusiness.filter((b) => usesSession(b.index));
    expect(new Set(keyed.map((b) => b.apiKeyRequests)).size, JSON.stringify(keyed.map((b) => b.apiKeyRequests))).toBe(1);
    expect(keyed.every((b) => b.apiKeyRequests > 0 && b.sessionRequests === 0)).toBe(true);
    expect(new Set(session.map((b) => b.sessionRequests)).size, JSON.stringify(session.map((b) => b.sessionRequests))).toBe(1);
    expect(session.every((b) => b.sessionRequests > 0 && b.apiKeyRequests === 0)).toBe(true);
    expect(new Set(perBusiness.map((b) => b.v2Requests)).size).toBe(1);
  });

  it('leaks no secret in anything it saw (API keys, v2 tokens, session passwords)', () => {
    expect(scanner.record('isolation').leaks).toEqual([]);
  });
});
