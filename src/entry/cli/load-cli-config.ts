import { loadConfig, ConfigError, formatConfigError, type LoadedConfig } from '../../config/index.js';
import { sinkConfigSchema, type SinkConfig } from '../../../connectors/registry.js';

export type CliConfig = LoadedConfig<SinkConfig>;

// The secrets of the config this process loaded, for the last-resort error report in main.ts,
// which runs outside any command and could otherwise print a key quoted in an error message.
const loadedSecrets: string[] = [];

/** Every secret of the configs loaded so far (empty before a config is loaded). */
export function loadedConfigSecrets(): readonly string[] {
  return loadedSecrets;
}

/** Loads the config for a command; a bad file ends the process with every problem listed. */
export async function loadCliConfig(file: string): Promise<CliConfig> {
  try {
    const loaded = await loadConfig(file, { sinkSchema: sinkConfigSchema });
    loadedSecrets.push(...loaded.secrets);
    return loaded;
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${formatConfigError(error)}\n`);
      process.exit(2);
    }
    throw error;
  }
}
