import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';

function capture(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { stream, lines };
}

describe('createLogger', () => {
  it('replaces every configured secret wherever it appears in a line', () => {
    const { stream, lines } = capture();
    const logger = createLogger({ secrets: ['sk_live_abcdef123456', 'hunter2-password'], destination: stream });
    logger.error(
      { err: new Error('login failed for hunter2-password'), url: 'https://x/?key=sk_live_abcdef123456' },
      'request with sk_live_abcdef123456 failed',
    );
    const line = lines.join('');
    expect(line).not.toContain('sk_live_abcdef123456');
    expect(line).not.toContain('hunter2-password');
    const entry = JSON.parse(line) as { msg: string; url: string };
    expect(entry.msg).toBe('request with [redacted] failed');
    expect(entry.url).toBe('https://x/?key=[redacted]');
  });

  it('leaves lines without secrets untouched', () => {
    const { stream, lines } = capture();
    createLogger({ secrets: ['s3cr3t-value'], destination: stream }).info({ business: 'acme' }, 'synced');
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ business: 'acme', msg: 'synced' });
  });

  it('drops raw C1 controls and scrubs URL credentials and secrets in JSON spelling', () => {
    const { stream, lines } = capture();
    createLogger({ secrets: ['pa"ss\\word'], destination: stream }).warn({ reason: 'x\u009b2Jy', dsn: 'postgres://app:pw@db/x', body: 'pa"ss\\word' }, 'odd');
    const entry = JSON.parse(lines[0] ?? '{}') as Record<string, string>;
    expect(entry).toMatchObject({ reason: 'xy', dsn: 'postgres://[redacted]@db/x', body: '[redacted]' });
  });
});
