import { redactUrlCredentials } from './redactor.js';

/** Host and path of a URL (no user, password or query): where a sink writes, as a lock name; '' when it is no URL. */
export function urlPlace(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}`;
  } catch {
    return '';
  }
}

/** A URL as it may be shown: no user, no password, no query string. */
export function showUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return redactUrlCredentials(url);
  }
}
