import type { Command } from 'commander';
import { clearRateLimitBlock } from '../../source/ratelimit/index.js';
import { configKeySpace, connectRedis } from '../../base/redis/index.js';
import { createRedisStatusStore, FailedBusinesses } from '../../engine/state/index.js';
import { pingRedis } from './failure/preflight.js';
import { loadCliConfig } from './load-cli-config.js';

/** `callsync resume BUSINESS`: lifts a business's failure mark and its rate-limit block (e.g. after its key was fixed upstream). */
export function registerResumeCommand(program: Command): void {
  program
    .command('resume')
    .description('resume a business stopped by an auth failure; its next scheduled runs sync again')
    .argument('<business>', 'business name')
    .requiredOption('-c, --config <file>', 'YAML or JSON config file (for Redis)')
    .action(async (business: string, flags: { config: string }) => {
      const { config } = await loadCliConfig(flags.config);
      await pingRedis(config.redis);
      const redis = connectRedis(config.redis, { maxRetriesPerRequest: 1 });
      const keys = configKeySpace(config);
      try {
        const statusStore = createRedisStatusStore({ redis, prefix: config.redis.prefix, keys });
        const failed = new FailedBusinesses({ redis, statusStore, prefix: config.redis.prefix, keys });
        const wasFailed = await failed.resume(business);
        // The budget is keyed by business name (the budget key of runRules): a server's long block goes too.
        await clearRateLimitBlock(redis, keys, business);
        if (!config.businesses.some((b) => b.name === business)) {
          process.stderr.write(`warning: business ${business} is not in ${flags.config}\n`);
        }
        process.stdout.write(wasFailed ? `business ${business} resumed\n` : `business ${business} was not stopped\n`);
      } finally {
        await redis.quit();
      }
    });
}
