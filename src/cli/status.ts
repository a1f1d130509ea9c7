import type { Command } from 'commander';
import { Redis } from 'ioredis';
import { createSink } from '../../connectors/registry.js';
import { formatStatusJson, formatStatusTable } from '../server/index.js';
import { createRedisStatusStore, readStatusSnapshot, type StatusSnapshot } from '../state/index.js';
import { planBusinesses } from '../sync/plan-businesses.js';
import { using } from './failure/explain.js';
import { sinkTarget } from './failure/targets.js';
import { loadCliConfig } from './load-cli-config.js';
import { createRedactor, forTerminal } from '../redact/index.js';
import { createLogger } from './logger.js';
import { withCheckpoints } from './status/with-checkpoints.js';

/** Reads what the workers reported; an unreachable Redis is a note, not a failure. */
async function reportedStatus(url: string, prefix: string): Promise<{ snapshot: StatusSnapshot; note?: string }> {
  const empty: StatusSnapshot = { generatedAt: new Date().toISOString(), businesses: [] };
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null, connectTimeout: 2_000 });
  try {
    await redis.connect();
    return { snapshot: await readStatusSnapshot(createRedisStatusStore({ redis, prefix }), Date.now()) };
  } catch (error) {
    return { snapshot: empty, note: `Redis unreachable (${(error as Error).message}): showing the sink's checkpoints only` };
  } finally {
    redis.disconnect();
  }
}

/** `callsync status`: the status page as a terminal table (or JSON), whether or not a worker is up. */
export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('show every business × stream: state, last success, lag, records, dead letters, last error')
    .requiredOption('-c, --config <file>', 'YAML or JSON config file')
    .option('--json', 'the same document as GET /status')
    .action(async (flags: { config: string; json?: boolean }) => {
      const { config, secrets } = await loadCliConfig(flags.config);
      const logger = createLogger({ level: 'warn', secrets });
      const { snapshot, note } = await reportedStatus(config.redis.url, config.redis.prefix);
      const sink = await using(sinkTarget(config.sink), () => createSink(config.sink, { logger }));
      try {
        const configured = await Promise.all(
          planBusinesses(config).flatMap((plan) =>
            plan.streams.map(async (stream) => ({
              business: plan.name,
              stream: stream.name,
              checkpoint: await sink.checkpoints.load(plan.name, stream.name),
            })),
          ),
        );
        const merged = withCheckpoints(snapshot, configured);
        const text = flags.json === true ? formatStatusJson(merged) : formatStatusTable(merged, { width: process.stdout.columns ?? 120 });
        const redact = createRedactor(secrets);
        process.stdout.write(`${forTerminal(redact(text))}\n`);
        if (note !== undefined) process.stderr.write(`${forTerminal(redact(note))}\n`);
      } finally {
        await sink.close();
      }
    });
}
