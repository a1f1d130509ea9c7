import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, sourceFiles } from './source-graph.js';

// callsync's own code: not tests, test helpers or the simulator (the fake service answers requests, it sends none of ours).
const code = sourceFiles(['src', 'connectors']).filter((file) => !/\.(test|unit)\.ts$|\.unit\.ts$/.test(file));
const text = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

// A loop over attempts, or a loop whose next lines call the failure policy (a budget wait loop does
// not); and a read of an answer's body (undici's body mixins, or iterating one).
const ATTEMPT_LOOP = /\bfor\s*\(\s*let\s+attempt\b|\bwhile\s*\([^)]*\battempts?\b/;
const ANY_LOOP = /\bfor\s*\(\s*;\s*;\s*\)|\bwhile\s*\(|\bdo\s*\{/g;
const POLICY_CALL = /\b(?:classifyHttp|backoffDelayMs|classifyFailure|classifyHubSpotFailure|classifyDelivery)\(/;
const LOOP_BODY_CHARS = 1_500;
const RETRY_LOOP = {
  test: (source: string): boolean =>
    ATTEMPT_LOOP.test(source) || [...source.matchAll(ANY_LOOP)].some((loop) => POLICY_CALL.test(source.slice(loop.index, loop.index + LOOP_BODY_CHARS))),
};
const BODY_READ = /\.body\.(?:text|json|arrayBuffer|blob|dump)\(|for\s+await\s*\(\s*const\s+\w+\s+of\s+(?:\w+\.)?body\b/;

const matching = (pattern: { test: (source: string) => boolean }): string[] => code.filter((file) => pattern.test(text(file)));

describe('one HTTP exchange (docs/architecture.md "One HTTP exchange")', () => {
  it('scans the code base (so the checks below cannot pass on an empty list)', () => {
    expect(code).toContain('src/http/exchange.ts');
    expect(code).toContain('connectors/hubspot/client.ts');
  });

  it('the patterns find what they look for', () => {
    expect(RETRY_LOOP.test('for (let attempt = 1; ; attempt += 1) {')).toBe(true);
    // fetchWithRetry's old loop: `for (;;)` around `classifyFailure(error, now())` and a backoff.
    expect(RETRY_LOOP.test('for (;;) { try { return await get(); } catch (e) { const v = classifyFailure(e, now()); } }')).toBe(true);
    expect(RETRY_LOOP.test('for (;;) { const page = await next(); }')).toBe(false);
    // A wait for budget before an attempt is not a retry loop, whatever the file calls elsewhere.
    expect(RETRY_LOOP.test(`const wait = backoffDelayMs(1, policy);\n${' '.repeat(40)}\nfor (;;) { if (room()) return; await sleep(10); }`)).toBe(false);
    expect(BODY_READ.test('const text = await response.body.text();')).toBe(true);
    expect(BODY_READ.test('for await (const chunk of body) {')).toBe(true);
  });

  it('has one retry loop over attempts: send() in src/http/exchange.ts', () => {
    expect(matching(RETRY_LOOP)).toEqual(['src/http/exchange.ts']);
  });

  it('has one reader of an answer body: the bounded read in src/http/exchange.ts', () => {
    expect(matching(BODY_READ)).toEqual(['src/http/exchange.ts']);
  });
});
