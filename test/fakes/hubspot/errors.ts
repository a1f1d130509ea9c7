import { randomUUID } from 'node:crypto';

/** A routed answer. */
export interface Reply {
  readonly status: number;
  readonly body: unknown;
}

/** HubSpot's error body: `{ status: 'error', message, correlationId, category, … }`. */
export function errorReply(status: number, category: string, message: string, extra: Record<string, unknown> = {}): Reply {
  return { status, body: { status: 'error', message, correlationId: randomUUID(), category, ...extra } };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
