import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { salesforceConfigSchema, type SalesforceConfig } from '../../../connectors/salesforce/config.js';
import { createSalesforceSink } from '../../../connectors/salesforce/salesforce-sink.js';
import { openSqlStore } from '../../../connectors/sql/open-sql-store.js';
import type { Sink } from '../../../src/sink.js';
import { startFakeSalesforce, type FakeSalesforce, type FakeSalesforceOptions } from '../../fakes/salesforce/index.js';
import { capturingLogger } from '../hubspot/harness.js';

/** An RSA key pair as a connected app's certificate and the integration's private key would be. */
export function keyPair(): { publicKey: string; privateKey: string } {
  return generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
}

/** A directory with the private key file, and the fake org holding its certificate. */
export interface FakeOrg {
  readonly fake: FakeSalesforce;
  readonly dir: string;
  readonly keyPath: string;
  /** The `sink:` section for this org (JWT flow), as a config file would hold it. */
  sinkSection(overrides?: Record<string, unknown>): Record<string, unknown>;
  close(): Promise<void>;
}

export async function startOrg(options: FakeSalesforceOptions = {}): Promise<FakeOrg> {
  const keys = keyPair();
  const fake = await startFakeSalesforce({ certificate: keys.publicKey, ...options });
  const dir = await mkdtemp(join(tmpdir(), 'callsync-salesforce-'));
  const keyPath = join(dir, 'salesforce.key');
  await writeFile(keyPath, keys.privateKey, { mode: 0o600 });
  return {
    fake,
    dir,
    keyPath,
    sinkSection: (overrides = {}) => ({
      type: 'salesforce',
      loginUrl: fake.baseUrl,
      auth: { flow: 'jwt', consumerKey: fake.consumerKey, username: fake.username, privateKeyPath: keyPath },
      state: { type: 'sqlite', path: join(dir, 'state.db') },
      recordField: 'Callsync_Record__c',
      retry: { maxAttempts: 4, baseDelayMs: 20, maxDelayMs: 200 },
      ...overrides,
    }),
    async close() {
      await fake.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface SalesforceUnderTest {
  readonly org: FakeOrg;
  readonly sink: Sink;
  readonly logs: string[];
  /** A new sink over the same state and org, as a re-run in a new process would open it. */
  reopen(): Promise<Sink>;
  close(): Promise<void>;
}

/** A Salesforce sink (own sqlite state, own Agent) against a fresh fake org; the fake's login URL stands for login.salesforce.com. */
export async function startSalesforceSink(options: FakeSalesforceOptions = {}, overrides: Record<string, unknown> = {}): Promise<SalesforceUnderTest> {
  const org = await startOrg(options);
  const { logger, logs } = capturingLogger();
  const config: SalesforceConfig = salesforceConfigSchema.parse(org.sinkSection(overrides));
  const opened: { sink: Sink; dispatcher: Agent }[] = [];
  const open = async (): Promise<Sink> => {
    const store = await openSqlStore(config.state, logger);
    const dispatcher = new Agent();
    const sink = createSalesforceSink(config, { logger, dispatcher, store });
    opened.push({ sink, dispatcher });
    return sink;
  };
  const sink = await open();
  return {
    org,
    sink,
    logs,
    reopen: open,
    async close() {
      for (const { sink: each, dispatcher } of opened) {
        await each.close();
        await dispatcher.close();
      }
      await org.close();
    },
  };
}
