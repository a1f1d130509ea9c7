import { jsonType, parsed, problem, type Parsed } from './result.js';

/** `inbound` / `outbound` (any case); other strings and absent values → null; non-strings are problems. */
export function parseDirection(value: unknown): Parsed<'inbound' | 'outbound' | null> {
  if (value === null || value === undefined) return parsed(null);
  if (typeof value !== 'string') return problem(`expected a string, got ${jsonType(value)}`);
  const direction = value.trim().toLowerCase();
  return parsed(direction === 'inbound' || direction === 'outbound' ? direction : null);
}
