import { readFileSync } from 'node:fs';
import { Agent } from 'undici';
import type { Dispatcher } from 'undici';

export interface UpstreamAgentOptions {
  /** Connect, headers and body timeout of every request, ms. */
  readonly timeoutMs: number;
  /** PEM file of extra trusted CAs (a self-run instance with a private CA). Verification stays on. */
  readonly caFile?: string;
}

/**
 * The default dispatcher: one keep-alive `Agent` for the whole process. undici keeps one pool per
 * origin inside it, so every business's client shares connections to the same host.
 */
export function createUpstreamAgent(options: UpstreamAgentOptions): Dispatcher {
  const ca = options.caFile === undefined ? undefined : readFileSync(options.caFile, 'utf8');
  return new Agent({
    connect: { timeout: options.timeoutMs, ...(ca === undefined ? {} : { ca, rejectUnauthorized: true }) },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 30_000,
  });
}
