import { jsonType, parsed, problem, show, type Parsed } from './result.js';

const ABSOLUTE = /^https?:\/\//i;

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * A recording link as an absolute URL. Absolute http(s) URLs are kept; a path starting with
 * one `/` (v2's `/<user-folder>/recordings/...`) is joined to `baseUrl` with exactly one slash
 * between them. Absent or empty → null. Anything else (other schemes, `//host`, bare words)
 * is a problem.
 */
export function parseRecordingUrl(value: unknown, baseUrl: string): Parsed<string | null> {
  if (value === null || value === undefined || value === '') return parsed(null);
  if (typeof value !== 'string') return problem(`expected a URL or path, got ${jsonType(value)}`);
  const text = value.trim();
  if (ABSOLUTE.test(text)) return isHttpUrl(text) ? parsed(text) : problem(`invalid URL ${show(value)}`);
  if (!text.startsWith('/') || text.startsWith('//')) return problem(`not an absolute URL or /path: ${show(value)}`);
  const joined = `${baseUrl.replace(/\/+$/, '')}${text}`;
  return isHttpUrl(joined) ? parsed(joined) : problem(`cannot join ${show(value)} to the recordings base URL`);
}
