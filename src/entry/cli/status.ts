import { InvalidArgumentError, type Command } from 'commander';
import { createSink } from '../../../connectors/registry.js';
import { formatStatusJson, formatStatusSummary, formatStatusTable, lateAfterSeconds, statusDocument } from '../server/index.js';
import { createRedisStatusStore, readStatusSnapshot, type StatusSnapshot } from '../../engine/state/index.js';
import { planBusinesses } from '../../engine/sync/plan-businesses.js';
import { configKeySpace, connectRedis, type KeySpace, type RedisTarget } from '../../base/redis/index.js';
import { using } from './failure/explain.js';
import { sinkTarget } from './failure/targets.js';
import { loadCliConfig } from './load-cli-config.js';
import { createRedactor, forTerminal } from '../../base/redact/index.js';
import { createLogger } from './common/logger.js';
import { withCheckpoints, type ConfiguredStream } from './status/with-checkpoints.js';

/** Reads what the workers reported; an unreachable Redis is a note, not a failure. */
async function reportedStatus(target: RedisTarget, keys: KeySpace, activity: boolean): Promise<{ snapshot: StatusSnapshot; note?: string }> {
  const empty: StatusSnapshot = { generatedAt: new Date().toISOString(), businesses: [] };
  const redis = connectRedis(target, { lazyConnect: true, maxRetriesPerRequest: 1, reconnect: false, connectTimeoutMs: 2_000 });
  try {
    await redis.connect();
    return { snapshot: await readStatusSnapshot(createRedisStatusStore({ redis, prefix: keys.prefix, keys }), Date.now(), { activity }) };
  } catch (error) {
    return { snapshot: empty, note: `Redis unreachable (${(error as Error).message}): showing the sink's checkpoints only` };
  } finally {
    redis.disconnect();
  }
}

interface StatusFlags {
  readonly config: string;
  readonly json?: boolean;
  readonly all?: boolean;
  readonly limit: number;
}

function positiveInt(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError(`expected a whole number from 1, got ${JSON.stringify(value)}`);
  return parsed;
}

/**
 * `callsync status`: by default the summary and the streams that need a person (one screen at
 * 10,000 businesses); `--all` the table of every stream, `--json` the `/status` document of every
 * business. Works whether or not a worker is up.
 */
export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('the counts by state and the streams that need a person (--all: every business × stream)')
    .requiredOption('-c, --config <file>', 'YAML or JSON config file')
    .option('--all', "every business × stream as a table, with each business's records in the last hour")
    .option('--json', 'the /status document of every business (summary, every stream, activity)')
    .option('--limit <n>', 'most streams that need a person listed (the rest are counted)', positiveInt, 20)
    .action(async (flags: StatusFlags) => {
      const { config, secrets } = await loadCliConfig(flags.config);
      const logger = createLogger({ level: 'warn', secrets });
      const full = flags.json === true || flags.all === true;
      // The summary needs no chart: the activity of every business is read only for --all and --json.
      const { snapshot, note } = await reportedStatus(config.redis, configKeySpace(config), full);
      const sink = await using(sinkTarget(config.sink), () => createSink(config.sink, { logger }));
      try {
        // One at a time: the sink serializes them anyway, and 30,000 callers queued on its one
        // connection wake each other at every release (33 s at 10,000 businesses, against ~1 s).
        const configured: ConfiguredStream[] = [];
        for (const plan of planBusinesses(config)) {
          for (const stream of plan.streams) {
            configured.push({ business: plan.name, stream: stream.name, checkpoint: await sink.checkpoints.load(plan.name, stream.name) });
          }
        }
        const merged = withCheckpoints(snapshot, configured);
        const late = lateAfterSeconds(config.schedule.every);
        const width = process.stdout.columns ?? 120;
        const text =
          flags.json === true
            ? formatStatusJson(statusDocument(merged, { filter: {}, limit: Math.max(1, merged.businesses.length) }, late))
            : flags.all === true
              ? formatStatusTable(merged, { width })
              : formatStatusSummary(merged, { width, lateAfterSeconds: late, limit: flags.limit });
        const redact = createRedactor(secrets);
        process.stdout.write(`${forTerminal(redact(text))}\n`);
        if (note !== undefined) process.stderr.write(`${forTerminal(redact(note))}\n`);
      } finally {
        await sink.close();
      }
    });
}
