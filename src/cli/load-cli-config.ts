import { loadConfig, ConfigError, formatConfigError, type LoadedConfig } from '../config/index.js';
import { sinkConfigSchema, type SinkConfig } from '../../connectors/registry.js';

export type CliConfig = LoadedConfig<SinkConfig>;

/** Loads the config for a command; a bad file ends the process with every problem listed. */
export async function loadCliConfig(file: string): Promise<CliConfig> {
  try {
    return await loadConfig(file, { sinkSchema: sinkConfigSchema });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${formatConfigError(error)}\n`);
      process.exit(2);
    }
    throw error;
  }
}
