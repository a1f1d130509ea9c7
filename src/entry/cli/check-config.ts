import type { Command } from 'commander';
import type { Dispatcher } from 'undici';
import { configWarnings } from './config-warnings.js';
import { EXIT, OperatorError } from './failure/exit-codes.js';
import { pingHttp, openSink, pingRedis } from './failure/preflight.js';
import { upstreamTarget } from './failure/targets.js';
import { loadCliConfig, type CliConfig } from './load-cli-config.js';
import { createLogger } from './common/logger.js';
import { servicePolicy, UPSTREAM_TRAITS, type ReachOptions } from '../../http/index.js';
import { createRedactor } from '../../base/redact/index.js';
import { createUpstreamAgent } from '../../source/upstream/index.js';
import { reportFatal, wantsStack } from './failure/report-fatal.js';

interface CheckFlags {
  readonly config?: string;
  readonly checkConnections?: boolean;
}

/**
 * `callsync check-config --config FILE [--check-connections]`: validates without touching upstream
 * or the sink; with `--check-connections` it also reaches each service the config names. The
 * positional FILE is still accepted, as older scripts pass it.
 */
export function registerCheckConfigCommand(program: Command): void {
  program
    .command('check-config')
    .description('validate a config file and report every problem with its path')
    .argument('[file]', 'YAML or JSON config file (same as --config)')
    .option('-c, --config <file>', 'YAML or JSON config file')
    .option('--check-connections', 'also connect to the sink, Redis, upstream (and the webhook receiver)')
    .action(async (positional: string | undefined, flags: CheckFlags) => {
      const file = flags.config ?? positional;
      if (file === undefined) {
        process.stderr.write('error: no config file: pass --config FILE\n');
        process.exitCode = EXIT.config;
        return;
      }
      const loaded = await loadCliConfig(file);
      const { config } = loaded;
      const streams = config.businesses.map((business) => `${business.name}: ${business.streams.join(', ')}`);
      process.stdout.write(`${file}: valid (sink ${config.sink.type})\n${streams.map((line) => `  ${line}`).join('\n')}\n`);
      for (const warning of configWarnings(config)) process.stderr.write(`warning: ${warning}\n`);
      if (flags.checkConnections === true) process.exitCode = await checkConnections(loaded);
    });
}

/** The agent the sync itself connects with (`upstream.caFile` trusted); an unreadable caFile is said as such. */
function upstreamAgent(timeoutMs: number, caFile: string | undefined): Dispatcher {
  try {
    return createUpstreamAgent({ timeoutMs, caFile });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new OperatorError(
      `cannot read upstream.caFile ${caFile ?? ''}${typeof code === 'string' ? ` (${code})` : ''}\nfix: point upstream.caFile at a readable PEM file of the CA`,
      EXIT.config,
      { cause: error },
    );
  }
}

/** Each service in turn; every one is tried and reported, so one run lists every problem. */
async function checkConnections({ config, secrets }: CliConfig): Promise<number> {
  const logger = createLogger({ level: 'silent', secrets });
  const { upstream } = config;
  let agent: Dispatcher | undefined;
  const dispatcher = (): Dispatcher => (agent ??= upstreamAgent(upstream.timeoutMs, upstream.caFile));
  // The sync's own policy and retry settings (a passing failure is not a verdict); a HEAD needs no more than 5 s an attempt.
  const reach = (key: string): ReachOptions => ({
    dispatcher: dispatcher(),
    policy: servicePolicy(UPSTREAM_TRAITS, upstream.retry, upstream.maxWaitMs),
    maxAttempts: upstream.retry.maxAttempts,
    timeoutMs: Math.min(upstream.timeoutMs, 5_000),
    onRetry: ({ attempt, maxAttempts, waitMs, verdict }) =>
      process.stderr.write(`  ${key}: ${verdict.label}; trying again in ${waitMs} ms (attempt ${attempt} of ${maxAttempts})\n`),
  });
  const checks: Array<[string, () => Promise<void>]> = [
    ['sink', async () => (await openSink(config.sink, [], logger)).close()],
    [config.redis.cluster === undefined ? 'redis.url' : 'redis.cluster', () => pingRedis(config.redis)],
    ['upstream.baseUrl', () => pingHttp(upstreamTarget(upstream.baseUrl), upstream.baseUrl, reach('upstream.baseUrl'))],
  ];
  const v2 = upstream.v2BaseUrl;
  if (v2 !== undefined) checks.push(['upstream.v2BaseUrl', () => pingHttp(upstreamTarget(v2, 'upstream.v2BaseUrl'), v2, reach('upstream.v2BaseUrl'))]);
  let worst: number = EXIT.ok;
  for (const [name, check] of checks) {
    try {
      await check();
      process.stdout.write(`  ${name}: reachable\n`);
    } catch (error) {
      const code = reportFatal(error, wantsStack(process.argv, process.env), (text) => process.stderr.write(text), createRedactor(secrets));
      worst = Math.max(worst, code);
      process.stdout.write(`  ${name}: FAILED\n`);
    }
  }
  await agent?.close();
  return worst;
}
