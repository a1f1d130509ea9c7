import { redactUrlCredentials } from './redactor.js';

/** A URL as it may be shown: no user, no password, no query string. */
export function showUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return redactUrlCredentials(url);
  }
}
