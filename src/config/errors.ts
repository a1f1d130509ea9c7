/** One thing wrong with a config file. */
export interface ConfigProblem {
  /** Where, as written in the file: `businesses[2].apiKey`; empty for the whole file. */
  readonly path: string;
  /** What was expected and what was found; never a secret value. */
  readonly message: string;
  /** 1-based position, for syntax errors. */
  readonly line?: number;
  readonly column?: number;
}

/** A config file that cannot be used; carries every problem found, not only the first. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly file: string;
  readonly problems: readonly ConfigProblem[];

  constructor(file: string, problems: readonly ConfigProblem[]) {
    super(problems.map((problem) => formatProblem(file, problem)).join('\n'));
    this.file = file;
    this.problems = Object.freeze([...problems]);
  }
}

/** `businesses[2].apiKey` from zod's `['businesses', 2, 'apiKey']`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else text += text === '' ? String(key) : `.${String(key)}`;
  }
  return text;
}

function formatProblem(file: string, problem: ConfigProblem): string {
  const where = problem.line === undefined ? file : `${file}:${problem.line}${problem.column === undefined ? '' : `:${problem.column}`}`;
  return problem.path === '' ? `${where}: ${problem.message}` : `${where}: ${problem.path}: ${problem.message}`;
}

/** One line per problem: `config/acme.yaml: businesses[2].apiKey: required (expected a string)`. */
export function formatConfigError(error: ConfigError): string {
  return error.problems.map((problem) => formatProblem(error.file, problem)).join('\n');
}
