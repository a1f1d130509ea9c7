import type { Command } from 'commander';
import { Redis } from 'ioredis';
import { FailedBusinesses } from '../queue/failed-businesses.js';
import { queueKeys } from '../queue/names.js';
import { createRedisStatusStore } from '../server/index.js';
import { loadCliConfig } from './load-cli-config.js';

/** `callsync resume BUSINESS`: lifts a business's failure mark (e.g. after its key was fixed upstream). */
export function registerResumeCommand(program: Command): void {
  program
    .command('resume')
    .description('resume a business stopped by an auth failure; its next scheduled runs sync again')
    .argument('<business>', 'business name')
    .requiredOption('-c, --config <file>', 'YAML or JSON config file (for Redis)')
    .action(async (business: string, flags: { config: string }) => {
      const { config } = await loadCliConfig(flags.config);
      const redis = new Redis(config.redis.url, { maxRetriesPerRequest: 1 });
      try {
        const statusStore = createRedisStatusStore({ redis, prefix: config.redis.prefix });
        const failed = new FailedBusinesses({ redis, statusStore, hashKey: queueKeys(config.redis.prefix).failedConfig });
        const wasFailed = await failed.clear(business);
        for (const status of await statusStore.list()) {
          if (status.business === business && status.state === 'auth_failed') {
            await statusStore.update(business, status.stream, { state: 'idle', lastError: null });
          }
        }
        if (!config.businesses.some((b) => b.name === business)) {
          process.stderr.write(`warning: business ${business} is not in ${flags.config}\n`);
        }
        process.stdout.write(wasFailed ? `business ${business} resumed\n` : `business ${business} was not stopped\n`);
      } finally {
        await redis.quit();
      }
    });
}
