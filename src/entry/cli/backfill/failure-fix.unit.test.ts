import { describe, expect, it } from 'vitest';
import type { StreamFailure } from '../../../engine/state/index.js';
import { failedExit, failureFix } from './failure-fix.js';

const sink = (message: string, fix?: string): StreamFailure => ({ scope: 'stream', kind: 'sink', message, ...(fix === undefined ? {} : { fix }) });
const upstreamDown: StreamFailure = { scope: 'stream', kind: 'transient', message: 'GET /calls: network: ECONNREFUSED (after 5 attempts)' };
const auth: StreamFailure = { scope: 'business', kind: 'auth', message: 'GET /calls: 401' };

describe('the exit code of failed businesses', () => {
  it('is 3 when every one could not reach a service (upstream or the sink), 4 for the disk, 1 when they differ or for anything else', () => {
    const lost = sink('unreachable: PostgreSQL at postgres://db/x (sink.url): the connection was lost', 'start PostgreSQL there, or correct sink.url');
    const full = sink('filesystem: SQLite at /data/x.db (sink.path): the disk is full');
    expect(failedExit([lost])).toBe(3);
    expect(failedExit([lost, upstreamDown])).toBe(3);
    expect(failedExit([full])).toBe(4);
    expect(failedExit([lost, full])).toBe(1);
    expect(failedExit([lost, auth])).toBe(1);
    expect(failedExit([sink('internal: boom')])).toBe(1);
  });

  it("prints the failure's own fix: a sink's naming its key, an upstream one's", () => {
    expect(failureFix(sink('unreachable: …', 'start PostgreSQL there, or correct sink.url'), 'biz1', 0)).toBe(
      'fix: start PostgreSQL there, or correct sink.url; what was stored is kept',
    );
    const tooLarge: StreamFailure = { scope: 'stream', kind: 'invalid', message: 'HTTP 431', fix: 'check upstream.baseUrl' };
    expect(failureFix(tooLarge, 'biz1', 0)).toBe('fix: check upstream.baseUrl');
  });
});
