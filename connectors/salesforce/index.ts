import { showUrl } from '../../src/redact/index.js';
import type { Sink, SinkDeps, SinkFactory } from '../../src/sink.js';
import { openSqlStore } from '../sql/open-sql-store.js';
import { salesforceConfigSchema, type SalesforceConfig } from './config.js';
import { createSalesforceSink } from './salesforce-sink.js';

/** `sink: { type: salesforce, auth, state, … }`: calls and voicemails as Salesforce Tasks. */
export const salesforceSinkFactory = {
  type: 'salesforce' as const,
  configSchema: salesforceConfigSchema,
  async create(config: SalesforceConfig, deps: SinkDeps): Promise<Sink> {
    const store = await openSqlStore(config.state, deps.logger.child({ role: 'salesforce-state' }));
    return createSalesforceSink(config, { ...deps, store });
  },
  // The lock name has no place: every Salesforce sink shares it (the cautious reading, as before the factory named it).
  describe: (config: SalesforceConfig) => ({ key: 'sink.loginUrl', service: 'Salesforce', shown: showUrl(config.loginUrl), lockName: 'salesforce:' }),
} satisfies SinkFactory<SalesforceConfig>;
