import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../../base/redact/index.js';
import { EXIT, OperatorError } from './exit-codes.js';
import { explainFailure, showUrl } from './explain.js';
import { reportFatal } from './report-fatal.js';
import { sinkTarget } from './targets.js';

// As the SQLite connector describes itself; its own codes (SQLITE_*) are read by the connector.
const sqlite = sinkTarget({ type: 'sqlite', path: '/data/callsync.db', busyTimeoutMs: 5_000 });
const postgres = sinkTarget({ type: 'postgres', url: 'postgres://app:pw@db.example:5432/warehouse', schema: 'callsync', poolSize: 4 });
const coded = (code: string, message = code): Error => Object.assign(new Error(message), { code });

describe('explainFailure', () => {
  it.each([
    ['ENOSPC', 'error: SQLite at /data/callsync.db (sink.path): the disk is full', EXIT.filesystem],
    ['SQLITE_FULL', 'error: SQLite at /data/callsync.db (sink.path): the disk is full', EXIT.filesystem],
    ['SQLITE_CANTOPEN', 'error: sink.path /data/callsync.db: cannot write there (permission denied or a read-only file system)', EXIT.filesystem],
    ['EACCES', 'error: sink.path /data/callsync.db: cannot write there (permission denied or a read-only file system)', EXIT.filesystem],
    ['ENOTDIR', 'error: sink.path /data/callsync.db: a parent of this path is a file, not a directory', EXIT.filesystem],
  ])('%s → the operator line and its exit code', (code, first, exit) => {
    const explained = explainFailure(coded(code), sqlite);
    const lines: string[] = [];
    expect(reportFatal(explained, false, (text) => lines.push(text))).toBe(exit);
    expect(lines.join('').split('\n')[0]).toBe(first);
    expect(lines.join('').split('\n')[1]).toMatch(/^fix: .*sink\.path/);
  });

  it.each([
    ['3D000', 'error: PostgreSQL at postgres://db.example:5432/warehouse (sink.url): database "warehouse" does not exist', EXIT.unreachable],
    ['28P01', 'error: PostgreSQL at postgres://db.example:5432/warehouse (sink.url): the user or password was rejected', EXIT.unreachable],
    ['42501', 'error: PostgreSQL at postgres://db.example:5432/warehouse (sink.url): permission denied to create the schema or its tables', EXIT.unreachable],
    ['53100', 'error: PostgreSQL at postgres://db.example:5432/warehouse (sink.url): the disk is full', EXIT.filesystem],
  ])('PostgreSQL %s, read by its connector → the operator line and its exit code', (code, first, exit) => {
    const lines: string[] = [];
    expect(reportFatal(explainFailure(coded(code), postgres), false, (text) => lines.push(text))).toBe(exit);
    expect(lines.join('').split('\n')[0]).toBe(first);
    expect(lines.join('').split('\n')[1]).toMatch(/^fix: /);
  });

  it("a target without the connector's reading leaves driver codes to the generic one", () => {
    const bare = { key: 'sink.path', service: 'SQLite', shown: '/data/callsync.db' };
    expect(explainFailure(coded('SQLITE_FULL'), bare).exitCode).toBe(EXIT.failed);
  });

  it('reads the code through causes (the webhook ping wraps the socket error)', () => {
    const wrapped = new Error('webhook receiver is unreachable', { cause: coded('ECONNREFUSED') });
    const explained = explainFailure(wrapped, { key: 'sink.url', service: 'the webhook receiver', shown: 'http://h/hook' });
    expect(explained.message).toBe(
      'cannot reach the webhook receiver at http://h/hook (sink.url): connection refused\nfix: start the webhook receiver there, or correct sink.url',
    );
    expect(explained.exitCode).toBe(EXIT.unreachable);
  });

  it('an unknown failure keeps one scrubbed line of its message, no control characters', () => {
    const explained = explainFailure(new Error('boom at postgres://u:secret@h/db \u001b]0;owned\u0007 \nsecond line'), sqlite);
    expect(explained.message.split('\n')[0]).toBe('SQLite at /data/callsync.db (sink.path): boom at postgres://[redacted]@h/db  ');
    expect(explained.exitCode).toBe(EXIT.failed);
  });

  it('an OperatorError passes through untouched', () => {
    const original = new OperatorError('already said', EXIT.config);
    expect(explainFailure(original, sqlite)).toBe(original);
  });

  it('shows URLs without credentials or query', () => {
    expect(showUrl('postgres://user:pw@db.example:5432/warehouse?sslmode=require')).toBe('postgres://db.example:5432/warehouse');
  });
});

describe('reportFatal', () => {
  it('scrubs the configured secrets from whatever it prints, the stack included', () => {
    const key = 'ctk_live_0123456789abcdef0123456789abcdef';
    const lines: string[] = [];
    reportFatal(new Error(`upstream said: bad key ${key}`), true, (text) => lines.push(text), createRedactor([key]));
    expect(lines.join('')).not.toContain(key.slice(10, 18));
    expect(lines.join('')).toContain('bad key [redacted]');
  });

  it('prints one line and the hint for an unexpected error, the stack only when verbose', () => {
    const quiet: string[] = [];
    expect(reportFatal(new Error('surprise\nmore'), false, (text) => quiet.push(text))).toBe(EXIT.failed);
    expect(quiet.join('')).toBe('error: surprise\nrun again with --verbose for the stack trace\n');
    const loud: string[] = [];
    reportFatal(new Error('surprise'), true, (text) => loud.push(text));
    expect(loud.join('')).toMatch(/\n\s+at /);
  });
});
