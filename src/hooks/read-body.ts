import type { IncomingMessage } from 'node:http';

/** The raw body, or `too_large` as soon as it passes `maxBytes` (the rest is never read). */
export async function readBoundedBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | 'too_large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const bytes = chunk as Buffer;
    size += bytes.length;
    if (size > maxBytes) return 'too_large';
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, size);
}

/** The value at a dotted path of a JSON object (`event.type`), as text when it is a string or number. */
export function fieldText(payload: unknown, path: string): string | undefined {
  let value: unknown = payload;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  if (typeof value === 'string' && value !== '') return value;
  return typeof value === 'number' ? String(value) : undefined;
}
