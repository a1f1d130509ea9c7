import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { startTlsProxy, type TlsProxy } from '../../chaos/support/tls-proxy.js';
import { configDocument } from '../support/backfill-harness.js';
import { runCli } from '../support/cli-process.js';
import { uniqueName } from '../services.js';

let simulator: Simulator;
let proxy: TlsProxy;
let directory: string;

beforeAll(async () => {
  simulator = await startSimulator({ businesses: 1, calls: 10, voicemails: 1, numbers: 1, seed: 18, rateLimit: false });
  directory = mkdtempSync(join(tmpdir(), 'callsync-check-tls-'));
  proxy = await startTlsProxy(simulator.baseUrl, directory);
});

afterAll(async () => {
  await proxy.close();
  await simulator.close();
});

/** A config whose upstream sits behind a TLS front with a certificate no public CA signed. */
function writeConfig(name: string, caFile: string | undefined): string {
  const document = configDocument(simulator, join(directory, `${name}.db`));
  const upstream = {
    ...document.upstream,
    baseUrl: proxy.url,
    v2BaseUrl: simulator.v2BaseUrl.replace(simulator.baseUrl, proxy.url),
    retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10 },
    ...(caFile === undefined ? {} : { caFile }),
  };
  const path = join(directory, `${name}.json`);
  writeFileSync(path, JSON.stringify({ ...document, upstream, redis: { prefix: uniqueName('check-tls') } }));
  return path;
}

// Issue 30 item 18: the check used undici's global agent, so a private CA that `run` trusts failed check-config.
describe('check-config --check-connections with upstream.caFile', () => {
  it('trusts the CA the sync trusts: every upstream URL reachable, exit 0', async () => {
    const result = await runCli(['check-config', '--config', writeConfig('trusted', proxy.certPath), '--check-connections']);
    expect(result.stdout).toContain('  upstream.baseUrl: reachable\n');
    expect(result.stdout).toContain('  upstream.v2BaseUrl: reachable\n');
    expect(result.code, result.stderr).toBe(0);
  });

  it('still refuses the certificate without caFile (exit 3), so the check above really went through TLS verification', async () => {
    const result = await runCli(['check-config', '--config', writeConfig('untrusted', undefined), '--check-connections']);
    expect(result.stdout).toContain('  upstream.baseUrl: FAILED\n');
    expect(result.stderr).toMatch(/certificate|self[- ]signed/i);
    expect(result.code).toBe(3);
  });

  it('names an unreadable caFile and its fix in the upstream check (exit 2), without a stack', async () => {
    const result = await runCli(['check-config', '--config', writeConfig('missing', join(directory, 'no-such-ca.pem')), '--check-connections']);
    expect(result.stdout).toContain('  sink: reachable\n');
    expect(result.stdout).toContain('  upstream.baseUrl: FAILED\n');
    expect(result.stderr).toContain('error: cannot read upstream.caFile ');
    expect(result.stderr).toContain('(ENOENT)\nfix: point upstream.caFile at a readable PEM file of the CA\n');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(2);
  });
});
