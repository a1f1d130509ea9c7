import type { ConfigProblem } from './errors.js';
import { formatPath } from './errors.js';
import { isSecretPath, urlPassword } from './secret-fields.js';

/** Reads a secret file; throws (any error with an optional `code`) when it cannot. */
export type ReadSecretFile = (path: string) => string;

interface SubstituteOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly readFile: ReadSecretFile;
}

interface Substituted {
  readonly value: unknown;
  readonly problems: readonly ConfigProblem[];
  /** Values that must never be logged: substituted into or written in secret fields, and URL passwords, whatever their length (the redactor decides how a short one is removed). */
  readonly secrets: readonly string[];
}

// `$${` is an escaped literal `${`; `${...}` a reference; a `${` without `}` is a mistake.
const REFERENCE = /\$\$\{|\$\{([^}]*)\}|\$\{/g;

const VARIABLE = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([\s\S]*))?$/;

interface Walk {
  readonly options: SubstituteOptions;
  readonly problems: ConfigProblem[];
  readonly secrets: Set<string>;
}

function readTrimmed(walk: Walk, file: string, path: string, what: string): string | undefined {
  try {
    return walk.options.readFile(file).trim();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    walk.problems.push({ path, message: `cannot read ${what} "${file}"${typeof code === 'string' ? ` (${code})` : ''}` });
    return undefined;
  }
}

function resolveReference(walk: Walk, inner: string, path: string): string | undefined {
  if (inner.startsWith('file:')) return readTrimmed(walk, inner.slice(5), path, 'file');
  const match = VARIABLE.exec(inner);
  if (!match) {
    walk.problems.push({ path, message: `invalid reference "\${${inner}}" (expected \${NAME}, \${NAME:-default} or \${file:/path})` });
    return undefined;
  }
  const name = match[1] as string;
  const fallback = match[2];
  const value = walk.options.env[name];
  if (value !== undefined && (value !== '' || fallback === undefined)) return value;
  const secretFile = walk.options.env[`${name}_FILE`];
  if (secretFile !== undefined && secretFile !== '') return readTrimmed(walk, secretFile, path, `${name}_FILE`);
  if (fallback !== undefined) return fallback;
  walk.problems.push({ path, message: `environment variable ${name} is not set (nor ${name}_FILE)` });
  return undefined;
}

function substituteString(walk: Walk, text: string, keys: readonly PropertyKey[]): string {
  const path = formatPath(keys);
  const secret = isSecretPath(keys);
  const result = text.replace(REFERENCE, (whole, inner: string | undefined) => {
    if (whole === '$${') return '${';
    if (inner === undefined) {
      walk.problems.push({ path, message: 'unclosed "${" (write "$${" for a literal "${")' });
      return whole;
    }
    const value = resolveReference(walk, inner, path);
    if (value === undefined) return whole;
    if (secret) walk.secrets.add(value);
    return value;
  });
  if (secret) walk.secrets.add(result);
  const password = urlPassword(result);
  if (password !== undefined) {
    walk.secrets.add(password);
    walk.secrets.add(result);
  }
  return result;
}

function visit(walk: Walk, node: unknown, keys: readonly PropertyKey[]): unknown {
  if (typeof node === 'string') return substituteString(walk, node, keys);
  if (Array.isArray(node)) return node.map((item: unknown, index) => visit(walk, item, [...keys, index]));
  if (node !== null && typeof node === 'object') {
    return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, visit(walk, child, [...keys, key])]));
  }
  return node;
}

/**
 * Replaces `${NAME}`, `${NAME:-default}` (default when unset or empty), `NAME_FILE` (Docker
 * secrets, used when NAME is unset) and `${file:/path}` in every string value of a parsed
 * config, before validation. Collects every unresolvable reference as a problem; keys are
 * never substituted.
 */
export function substitute(document: unknown, options: SubstituteOptions): Substituted {
  const walk: Walk = { options, problems: [], secrets: new Set() };
  const value = visit(walk, document, []);
  return { value, problems: walk.problems, secrets: [...walk.secrets].filter((secret) => secret.length > 0) };
}
