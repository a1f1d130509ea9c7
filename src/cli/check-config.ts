import type { Command } from 'commander';
import { loadCliConfig } from './load-cli-config.js';

/** `callsync check-config FILE`: validates without touching upstream or the sink. */
export function registerCheckConfigCommand(program: Command): void {
  program
    .command('check-config')
    .description('validate a config file and report every problem with its path')
    .argument('<file>', 'YAML or JSON config file')
    .action(async (file: string) => {
      const { config } = await loadCliConfig(file);
      const streams = config.businesses.map((business) => `${business.name}: ${business.streams.join(', ')}`);
      process.stdout.write(`${file}: valid (sink ${config.sink.type})\n${streams.map((line) => `  ${line}`).join('\n')}\n`);
    });
}
