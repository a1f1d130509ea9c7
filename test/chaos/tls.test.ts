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
import { startTlsProxy, type TlsProxy } from './support/tls-proxy.js';

const scanner = new SecretScanner();
let simulator: Simulator;
let proxy: TlsProxy;
let directory: string;

beforeAll(async () => {
  simulator = await startSimulator({ businesses: 2, calls: 600, voicemails: 30, numbers: 3, seed: 1212, rateLimit: { limit: 100, windowMs: 1000 } });
  scanner.addSimulator(simulator);
  directory = mkdtempSync(join(tmpdir(), 'callsync-chaos-tls-'));
  proxy = await startTlsProxy(simulator.baseUrl, directory);
});

afterAll(async () => {
  await proxy.close();
  await simulator.close();
});

function writeConfig(name: string, caFile: string | undefined): { configPath: string; databasePath: string } {
  const databasePath = join(directory, `${name}.db`);
  const configPath = join(directory, `${name}.json`);
  const document = configDocument(simulator, databasePath, { pageSize: 100, rateLimit: { requests: 100, perMs: 1000 }, logLevel: 'info' });
  const upstream = {
    ...document.upstream,
    baseUrl: proxy.url,
    v2BaseUrl: simulator.v2BaseUrl.replace(simulator.baseUrl, proxy.url),
    ...(caFile === undefined ? {} : { caFile }),
  };
  writeFileSync(configPath, JSON.stringify({ ...document, upstream }));
  return { configPath, databasePath };
}

describe('scenario 12: TLS verification is on by default', () => {
  it('refuses a self-signed certificate without caFile: exit 1 naming each business with a TLS error, no endless retries', async () => {
    const { configPath } = writeConfig('untrusted', undefined);
    const run = await runCli(['backfill', '--config', configPath, '--no-progress']);
    scanner.collect('untrusted stdout', run.stdout);
    scanner.collect('untrusted stderr', run.stderr);
    expect(run.code, run.stderr).toBe(1);
    for (const business of simulator.businesses) expect(run.stderr).toMatch(new RegExp(`business ${business.name} failed|${business.name}.*(certificate|TLS)`));
    expect(run.stdout + run.stderr).toMatch(/certificate|TLS|self[- ]signed/i);
    expect(run.stderr).toMatch(/invalid/);
    // Not retried as transient: one refused handshake per stream attempt, far below 12 attempts × streams.
    expect(proxy.rejectedHandshakes()).toBeLessThanOrEqual(simulator.businesses.length * 3);
    expect(simulator.counters().businesses['biz-1']?.apiKeyRequests).toBe(0);
  });

  it('trusts the certificate given as upstream.caFile and ends exact', async () => {
    const { configPath, databasePath } = writeConfig('trusted', proxy.certPath);
    const run = await runCli(['backfill', '--config', configPath, '--no-progress']);
    scanner.collect('trusted stdout', run.stdout);
    scanner.collect('trusted stderr', run.stderr);
    scanner.collectSqlite('sink', databasePath);
    const diffs = diffSqlite(databasePath, simulator);
    recordRow({ scenario: '12 TLS self-signed (caFile)', faults: { untrustedCert: proxy.rejectedHandshakes() }, restarts: 0, ...figuresOf(diffs) });
    expect(run.code, run.stderr).toBe(0);
    expectExact(diffs);
  });

  it('leaks no secret in anything it saw', () => {
    expect(scanner.record('tls').leaks).toEqual([]);
  });
});
