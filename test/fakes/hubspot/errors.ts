import { randomUUID } from 'node:crypto';
import type { Reply } from '../json-service.js';

/** HubSpot's error body: `{ status: 'error', message, correlationId, category, … }`. */
export function errorReply(status: number, category: string, message: string, extra: Record<string, unknown> = {}): Reply {
  return { status, body: { status: 'error', message, correlationId: randomUUID(), category, ...extra } };
}
