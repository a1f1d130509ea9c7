import { parseDocument } from 'yaml';
import type { ConfigProblem } from './errors.js';

type ParsedText = { ok: true; value: unknown } | { ok: false; problems: ConfigProblem[] };

interface YamlIssue {
  readonly message: string;
  readonly linePos?: [{ line: number; col: number }, ...unknown[]];
}

// yaml's messages end with the offending source line; it may hold a secret written in clear.
function problemOf(issue: YamlIssue, format: 'YAML' | 'JSON'): ConfigProblem {
  const first = issue.message.split('\n')[0] ?? issue.message;
  const message = `invalid ${format}: ${first.replace(/ at line \d+, column \d+:?$/, '').replace(/"[^"]*"/g, '"…"')}`;
  const position = issue.linePos?.[0];
  return position ? { path: '', message, line: position.line, column: position.col } : { path: '', message };
}

function parseYaml(text: string, format: 'YAML' | 'JSON'): ParsedText {
  const document = parseDocument(text, { schema: format === 'JSON' ? 'json' : 'core', uniqueKeys: true });
  if (document.errors.length > 0) return { ok: false, problems: document.errors.map((error) => problemOf(error, format)) };
  const value: unknown = document.toJS({ maxAliasCount: 100 });
  if (value === null || value === undefined) return { ok: false, problems: [{ path: '', message: 'the file is empty' }] };
  return { ok: true, value };
}

/**
 * Parses a config file's text by its extension: `.yaml`/`.yml` as YAML 1.2 (duplicate keys are
 * errors), `.json` as JSON. Syntax errors come back as problems with a line and column.
 */
export function parseConfigText(text: string, file: string): ParsedText {
  if (/\.ya?ml$/i.test(file)) return parseYaml(text, 'YAML');
  if (!/\.json$/i.test(file)) return { ok: false, problems: [{ path: '', message: 'unsupported file type (expected .yaml, .yml or .json)' }] };
  try {
    const value: unknown = JSON.parse(text);
    return value === null ? { ok: false, problems: [{ path: '', message: 'the file is empty' }] } : { ok: true, value };
  } catch {
    // JSON.parse names no line (and may quote the text); the yaml parser in JSON mode locates the fault.
    const located = parseYaml(text, 'JSON');
    return located.ok ? { ok: false, problems: [{ path: '', message: 'invalid JSON' }] } : located;
  }
}
