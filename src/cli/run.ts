import type { Command } from 'commander';
import { createSink } from '../../connectors/registry.js';
import { startRunWorker } from '../queue/run-worker.js';
import { loadCliConfig } from './load-cli-config.js';
import { createRedactor } from '../redact/index.js';
import { createLogger } from './logger.js';
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
      const logger = createLogger({ level: config.log.level, secrets });
      const sink = await createSink(config.sink, { logger });
      let worker: Awaited<ReturnType<typeof startRunWorker>>;
      try {
        worker = await startRunWorker({ config, sink, logger, redact: createRedactor(secrets) });
      } catch (error) {
        await sink.close();
        throw error;
      }
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
            .then(() => sink.close())
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
