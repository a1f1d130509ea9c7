import type { z } from 'zod';
import { createRedactor } from '../base/redact/index.js';
import { ConfigError, type ConfigProblem } from './errors.js';
import { deepFreeze } from './freeze.js';
import { problemsOf } from './issues.js';
import { buildConfigSchema, type CallsyncConfig } from './schema.js';
import { substitute, type ReadSecretFile } from './substitute.js';

interface ResolveOptions<S extends z.ZodType> {
  readonly sinkSchema: S;
  /** Where `${NAME}` values come from. @defaultValue process.env (the loader passes it) */
  readonly env: NodeJS.ProcessEnv;
  /** Reads `${file:...}` and `NAME_FILE` secrets. */
  readonly readFile: ReadSecretFile;
  /** Named in errors. */
  readonly file: string;
}

export interface ResolvedConfig<TSink> {
  readonly config: CallsyncConfig<TSink>;
  /** Every secret value, for the logger's redaction; never empty strings. */
  readonly secrets: readonly string[];
}

// Substituted values may end up in a message (zod custom messages quote some inputs).
function redact(problems: readonly ConfigProblem[], secrets: readonly string[]): ConfigProblem[] {
  const scrub = createRedactor(secrets);
  return problems.map((problem) => ({ ...problem, message: scrub(problem.message) }));
}

/**
 * Turns a parsed config document (from a file or built in code) into a frozen config:
 * substitutes `${...}` references, validates with the schema, applies defaults. Throws
 * ConfigError listing every problem found by substitution and validation together.
 */
export function resolveConfig<S extends z.ZodType>(document: unknown, options: ResolveOptions<S>): ResolvedConfig<z.output<S>> {
  const substituted = substitute(document, { env: options.env, readFile: options.readFile });
  const result = buildConfigSchema(options.sinkSchema).safeParse(substituted.value);
  const problems = [...substituted.problems];
  if (!result.success) {
    // A reference that failed to resolve also fails validation; report it once.
    const reported = new Set(problems.map((problem) => problem.path));
    problems.push(...problemsOf(result.error.issues).filter((problem) => !reported.has(problem.path)));
  }
  if (problems.length > 0 || !result.success) throw new ConfigError(options.file, redact(problems, substituted.secrets));
  const config = deepFreeze(result.data) as unknown as CallsyncConfig<z.output<S>>;
  return { config, secrets: Object.freeze([...substituted.secrets]) };
}
