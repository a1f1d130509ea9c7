import type { IncomingMessage } from 'node:http';

const MAX_BODY_BYTES = 64 * 1024;

/** Reads a JSON object body; undefined when it is not one (empty, malformed, too large or not an object). */
export async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(buf);
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A required non-empty string field, or the invalid-request message naming it. */
export function requiredString(body: Record<string, unknown>, field: string): string | { error: string } {
  const value = body[field];
  if (typeof value !== 'string' || value.trim() === '') return { error: `Invalid request: ${field} is required` };
  return value;
}
