import type { Dispatcher } from 'undici';
import type { UpstreamConfig } from '../../config/index.js';
import type { BusinessPlan } from '../sync/business-plan.js';
import { createUpstreamClient, type UpstreamClient } from '../../source/upstream/index.js';

interface UpstreamClients {
  /** The business's client, created on first use; session logins are reused across jobs. */
  readonly get: (plan: BusinessPlan) => UpstreamClient;
  close(): Promise<void>;
}

/** One client per business for the life of the process, all on one shared dispatcher. */
export function upstreamClients(upstream: UpstreamConfig, dispatcher: Dispatcher): UpstreamClients {
  const clients = new Map<string, UpstreamClient>();
  return {
    get(plan) {
      let client = clients.get(plan.name);
      if (client === undefined) {
        client = createUpstreamClient({ ...upstream, credentials: plan.credentials, dispatcher });
        clients.set(plan.name, client);
      }
      return client;
    },
    async close() {
      await Promise.all([...clients.values()].map((client) => client.close()));
      clients.clear();
    },
  };
}
