import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { ConfigError } from './errors.js';
import { parseConfigText } from './parse-text.js';
import { resolveConfig, type ResolvedConfig } from './resolve.js';

interface LoadConfigOptions<S extends z.ZodType> {
  /** Validates the `sink:` section; the connector registry builds it. */
  readonly sinkSchema: S;
  /** @defaultValue process.env */
  readonly env?: NodeJS.ProcessEnv;
}

export interface LoadedConfig<TSink> extends ResolvedConfig<TSink> {
  /** The file the config came from, as given. */
  readonly file: string;
}

/**
 * Reads, parses (YAML or JSON by extension), substitutes and validates a config file.
 * Relative `${file:...}` and `NAME_FILE` paths are read from the working directory.
 * Throws ConfigError naming the file and every problem; the message never holds a secret.
 */
export async function loadConfig<S extends z.ZodType>(file: string, options: LoadConfigOptions<S>): Promise<LoadedConfig<z.output<S>>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new ConfigError(file, [{ path: '', message: `cannot read the config file${typeof code === 'string' ? ` (${code})` : ''}` }]);
  }
  const parsed = parseConfigText(text, file);
  if (!parsed.ok) throw new ConfigError(file, parsed.problems);
  const resolved = resolveConfig(parsed.value, {
    sinkSchema: options.sinkSchema,
    env: options.env ?? process.env,
    // Secrets are read once at start-up, so a synchronous read keeps substitution simple.
    readFile: (path) => readFileSync(path, 'utf8'),
    file,
  });
  return { ...resolved, file };
}
