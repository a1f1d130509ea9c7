import type { Command } from 'commander';
import { startRunWorker } from './run/start-run-worker.js';
import { planBusinesses } from '../../engine/sync/plan-businesses.js';
import { configWarnings } from './config-warnings.js';
import { explainFailure } from './failure/explain.js';
import { openSink, pingRedis, planTables } from './failure/preflight.js';
import { loadCliConfig } from './load-cli-config.js';
import { createRedactor } from '../../base/redact/index.js';
import { createLogger, flushLogs } from './common/logger.js';
import { onShutdownSignal } from './shutdown.js';

/**
 * `callsync run`: the always-on worker. Runs until SIGTERM/SIGINT, then stops taking jobs, lets
 * the pages in flight be stored, closes everything and exits 0; past `worker.shutdownTimeoutMs`
 * it exits 1 anyway (a job cut off there is taken over by another replica as a stalled job).
 */
export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('run the scheduler and sync workers (BullMQ on Redis) with the status server, until SIGTERM')
    .requiredOption('-c, --config <file>', 'YAML or JSON config file')
    .action(async (flags: { config: string }) => {
      const { config, secrets } = await loadCliConfig(flags.config);
      // A line per stream poll: written in batches, at most a quarter second late.
      const logger = createLogger({ level: config.log.level, secrets, bufferMs: 250 });
      for (const warning of configWarnings(config)) logger.warn(warning);
      let sink: Awaited<ReturnType<typeof openSink>> | undefined;
      let worker: Awaited<ReturnType<typeof startRunWorker>>;
      try {
        await pingRedis(config.redis);
        sink = await openSink(config.sink, planTables(planBusinesses(config)), logger, config.recordings?.publicBaseUrl);
        worker = await startRunWorker({ config, sink, logger, redact: createRedactor(secrets), file: flags.config, secrets });
      } catch (error) {
        await sink?.close();
        // The lines logged so far come before the error report, as they happened.
        flushLogs(logger);
        throw portInUse(error)
          ? explainFailure(error, { key: 'server.port', service: 'the status server', shown: `${config.server.host}:${config.server.port}` })
          : error;
      }
      const opened = sink;
      await new Promise<void>((resolve) => {
        const stopListening = onShutdownSignal(() => {
          logger.info({ deadlineMs: config.worker.shutdownTimeoutMs }, 'shutting down after the pages in flight are stored');
          const deadline = setTimeout(() => {
            logger.error({ deadlineMs: config.worker.shutdownTimeoutMs }, 'shutdown deadline passed; exiting now');
            process.exit(1);
          }, config.worker.shutdownTimeoutMs);
          deadline.unref();
          worker
            .shutdown()
            .then(() => opened.close())
            .then(() => {
              stopListening();
              logger.info('stopped');
              resolve();
            })
            .catch((error: unknown) => {
              logger.error({ err: error instanceof Error ? error.message : String(error) }, 'shutdown failed');
              process.exit(1);
            });
        });
      });
      // Lingering sockets (keep-alive, Redis reconnects) must not keep a stopped worker alive.
      process.exit(0);
    });
}

function portInUse(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL';
}
