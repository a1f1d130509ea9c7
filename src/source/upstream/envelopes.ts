import { isJsonObject } from '../../normalize/index.js';

/** The fields callsync keeps from an error body; nothing else of it is ever logged. */
export interface ErrorBody {
  readonly message?: string;
  /** `error.code` of an ordinary v1 error, or the `error` token of a 429 (`rate_limit_exceeded`). */
  readonly code?: string;
  /** `retry_after` of a 429 body, in seconds. */
  readonly retryAfterSeconds?: number;
}

const MAX_TEXT = 200;

// Scrubbed before the cut: a secret cut in half would no longer match the redactor.
function texts(clean: (text: string) => string) {
  return (value: unknown): string | undefined => {
    if (typeof value !== 'string') return undefined;
    const cleaned = clean(value).trim();
    return cleaned === '' ? undefined : cleaned.slice(0, MAX_TEXT);
  };
}

/**
 * Reads the three error shapes: `{ error: { code, message } }`,
 * `{ error: "rate_limit_exceeded", message, retry_after }` and session-style `{ error: "message" }`;
 * also `{ message }` and non-JSON text (its first 200 characters). `clean` (the redactor, control
 * characters out) runs on every string before it is cut to 200 characters.
 */
export function parseErrorBody(body: unknown, clean: (text: string) => string = (t) => t): ErrorBody {
  const text = texts(clean);
  if (typeof body === 'string') {
    const message = text(body.replace(/\s+/g, ' '));
    return message === undefined ? {} : { message };
  }
  if (!isJsonObject(body)) return {};
  const { error } = body;
  const retryAfter = typeof body.retry_after === 'number' ? body.retry_after : Number(text(body.retry_after));
  const withRetry = Number.isFinite(retryAfter) && retryAfter >= 0 ? { retryAfterSeconds: retryAfter } : {};
  if (isJsonObject(error)) {
    const code = text(error.code) ?? (typeof error.code === 'number' ? String(error.code) : undefined);
    return { ...optional('message', text(error.message) ?? text(body.message)), ...optional('code', code), ...withRetry };
  }
  const errorText = text(error);
  const message = text(body.message);
  if (errorText !== undefined && message !== undefined) return { message, code: errorText, ...withRetry };
  return { ...optional('message', errorText ?? message), ...withRetry };
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}
