import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { redisOutageLog } from './outage-log.js';

function refused(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
}

function logged(): { lines: Array<Record<string, unknown>>; logger: pino.Logger } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ base: undefined, timestamp: false }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { lines, logger };
}

describe('redisOutageLog', () => {
  it('says an outage once, the same failure again only after 30 s with the count between, and the return once', () => {
    const { lines, logger } = logged();
    let now = 0;
    const outage = redisOutageLog(logger, () => now);
    for (let attempt = 0; attempt < 70; attempt += 1) {
      outage.error(attempt % 2 === 0 ? 'redis' : 'queue', refused());
      now += 500;
    }
    outage.ready();
    outage.ready();
    const failure = { level: 40, err: 'connect ECONNREFUSED 127.0.0.1:6379', msg: 'redis unavailable; retrying' };
    expect(lines).toEqual([
      { ...failure, source: 'redis' },
      // At 30 s: the 59 attempts since the first line are counted, not written.
      { ...failure, source: 'redis', repeated: 59 },
      { level: 30, failures: 70, msg: 'redis reachable again' },
    ]);
  });

  it('a failure that is not about reaching Redis is named by its source', () => {
    const { lines, logger } = logged();
    redisOutageLog(logger).error('worker', new Error('ERR unknown command'));
    expect(lines).toEqual([{ level: 40, source: 'worker', err: 'ERR unknown command', msg: 'worker error' }]);
  });
});
