import { mix } from './prng.js';

/** Where a cursor walk stands: how many calls (in ascending order) were already returned. */
interface CursorPosition {
  position: number;
  issuedMs: number;
}

function signature(secret: number, business: number, position: number, issuedMs: number): string {
  return mix(secret, business, position, issuedMs).toString(36);
}

/**
 * Opaque `next_cursor`: base64url of `position.issuedMs.signature`. The signature ties it to one
 * business and rejects edited or garbled cursors; the issue time lets cursors expire.
 */
export function encodeCursor(secret: number, business: number, position: number, issuedMs: number): string {
  const raw = `${position}.${issuedMs}.${signature(secret, business, position, issuedMs)}`;
  return Buffer.from(raw, 'utf8').toString('base64url');
}

/** The position in a cursor, or undefined when it is not one this simulator issued for this business. */
export function decodeCursor(secret: number, business: number, token: string): CursorPosition | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  const parts = Buffer.from(token, 'base64url').toString('utf8').split('.');
  if (parts.length !== 3) return undefined;
  const [p, t, sig] = parts;
  if (!/^\d+$/.test(p ?? '') || !/^\d+$/.test(t ?? '')) return undefined;
  const position = Number(p);
  const issuedMs = Number(t);
  if (sig !== signature(secret, business, position, issuedMs)) return undefined;
  return { position, issuedMs };
}
