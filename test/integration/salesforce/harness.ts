import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createSink, type SinkConfig } from '../../../connectors/registry.js';
import { createLogReporter } from '../../../src/entry/cli/backfill/log-reporter.js';
import { runBackfill } from '../../../src/entry/cli/backfill/run-backfill.js';
import type { CallsyncConfig } from '../../../src/config/index.js';
import { planBusinesses } from '../../../src/engine/sync/plan-businesses.js';
import type { BusinessOutcome } from '../../../src/engine/sync/sync-event.js';
import { salesforceConfigSchema, type SalesforceConfig } from '../../../connectors/salesforce/config.js';
import { createSalesforceSink } from '../../../connectors/salesforce/sink.js';
import { startFakeSalesforce, type FakeSalesforce, type FakeSalesforceOptions } from '../../fakes/salesforce/index.js';
import { capturingLogger, openCrmSink, type CrmSinkUnderTest } from '../support/crm-sink.js';

/** An RSA key pair as a connected app's certificate and the integration's private key would be. */
export function keyPair(): { publicKey: string; privateKey: string } {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
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

export interface SalesforceUnderTest extends CrmSinkUnderTest {
  readonly org: FakeOrg;
}

/** A Salesforce sink (own sqlite state, own Agent) against a fresh fake org; the fake's login URL stands for login.salesforce.com. */
export async function startSalesforceSink(options: FakeSalesforceOptions = {}, overrides: Record<string, unknown> = {}): Promise<SalesforceUnderTest> {
  const org = await startOrg(options);
  const config: SalesforceConfig = salesforceConfigSchema.parse(org.sinkSection(overrides));
  const opened = await openCrmSink(
    config.state,
    (deps) => createSalesforceSink(config, deps),
    () => org.close(),
  );
  return { org, ...opened };
}

/** How people type a US number `n` (10 digits) into a Contact or Lead: four ways, on either phone field. */
export const TYPED: readonly ((n: string) => Record<string, string>)[] = [
  (n) => ({ Phone: `(${n.slice(0, 3)}) ${n.slice(3, 6)}-${n.slice(6)}` }),
  (n) => ({ MobilePhone: `${n.slice(0, 3)}.${n.slice(3, 6)}.${n.slice(6)}` }),
  (n) => ({ Phone: `+1 ${n.slice(0, 3)} ${n.slice(3, 6)} ${n.slice(6)}` }),
  (n) => ({ MobilePhone: `1-${n.slice(0, 3)}-${n.slice(3, 6)}-${n.slice(6)}` }),
];

export interface Backfilled {
  readonly outcomes: BusinessOutcome[];
  readonly logs: string[];
}

/** One in-process backfill into Salesforce, as `callsync backfill` runs it, with the sink's log lines kept. */
export async function backfillInto(config: CallsyncConfig<SinkConfig>): Promise<Backfilled> {
  const { logger, logs } = capturingLogger();
  const sink = await createSink(config.sink, { logger });
  try {
    const outcomes = await runBackfill({ config, plans: planBusinesses(config), sink, reporter: createLogReporter(pino({ level: 'silent' })) });
    return { outcomes, logs };
  } finally {
    await sink.close();
  }
}
