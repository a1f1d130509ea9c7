import { showUrl, urlPlace } from '../../src/base/redact/index.js';
import type { Sink, SinkDeps, SinkFactory } from '../../src/sink/sink.js';
import { openArchivedLinks } from '../crm/index.js';
import { openStateStore } from '../state-stores/index.js';
import { salesforceConfigSchema, type SalesforceConfig } from './config.js';
import { createSalesforceSink } from './sink.js';

/** `sink: { type: salesforce, auth, state, … }`: calls and voicemails as Salesforce Tasks. */
export const salesforceSinkFactory = {
  type: 'salesforce' as const,
  configSchema: salesforceConfigSchema,
  async create(config: SalesforceConfig, deps: SinkDeps): Promise<Sink> {
    const store = await openStateStore(config.state, deps.logger.child({ role: 'salesforce-state' }));
    try {
      const base = deps.recordingsBaseUrl;
      const archivedLinks = base === undefined ? undefined : await openArchivedLinks(config.state, base, deps.logger.child({ role: 'salesforce-recordings' }));
      return createSalesforceSink(config, { ...deps, store, ...(archivedLinks === undefined ? {} : { archivedLinks }) });
    } catch (error) {
      await store.close();
      throw error;
    }
  },
  describe: (config: SalesforceConfig) => ({
    key: 'sink.loginUrl',
    service: 'Salesforce',
    shown: showUrl(config.loginUrl),
    lockName: `salesforce:${orgOf(config)}`,
  }),
} satisfies SinkFactory<SalesforceConfig>;

/**
 * The org a config writes, from the config alone (the lock is taken before any token request):
 * a Salesforce username belongs to exactly one org, and the client credentials flow asks its own
 * org's My Domain URL for a token. Login URLs such as login.salesforce.com serve every org, so
 * they alone would make two orgs' syncs of same-named businesses wait for each other.
 */
function orgOf(config: SalesforceConfig): string {
  return config.auth.flow === 'jwt' ? `user:${config.auth.username.toLowerCase()}` : `app:${config.auth.consumerKey}@${urlPlace(config.loginUrl)}`;
}
