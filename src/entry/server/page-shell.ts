import { escapeHtml } from './html.js';
import { legend } from './status-rows.js';
import { STATUS_PAGE_CSS } from './status-page-style.js';

export interface PageOptions {
  /** Seconds between automatic reloads (a meta refresh: works without JavaScript). @defaultValue 5 */
  readonly refreshSeconds?: number;
}

interface PageParts {
  readonly title: string;
  readonly generatedAt: string;
  /** The way back to `/` from this page (`''` at `/`, `'../'` one level down); links stay relative so a proxy's path prefix keeps working. */
  readonly base: string;
  /** Markup under the title, already escaped. */
  readonly header?: string;
  /** The page's content, already escaped. */
  readonly main: string;
}

/**
 * A complete status page: inline CSS only, no script, so it works with JavaScript off and under a
 * `default-src 'none'` content security policy.
 */
export function renderPage(parts: PageParts, options: PageOptions = {}): string {
  const refresh = Math.max(1, Math.round(options.refreshSeconds ?? 5));
  const { base } = parts;
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    `<meta http-equiv="refresh" content="${refresh}"><title>${escapeHtml(parts.title)}</title>` +
    `<style>${STATUS_PAGE_CSS}</style></head><body>` +
    `<header><h1>${escapeHtml(parts.title)}</h1>` +
    `<p class="meta">Generated <time datetime="${escapeHtml(parts.generatedAt)}">${escapeHtml(parts.generatedAt)}</time>; ` +
    `reloads every ${refresh} s. Machine-readable: <a href="${base}status">/status</a>, <a href="${base}metrics">/metrics</a>.</p>` +
    `${parts.header ?? ''}</header><main>${parts.main}</main>${legend()}</body></html>`
  );
}
