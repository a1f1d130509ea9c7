import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../config/index.js';
import { minimalConfig, testSinkSchema } from '../../../test/support/config-fixtures.js';
import { configWarnings } from './config-warnings.js';

function warningsOf(extra: Record<string, unknown>): string[] {
  const { config } = resolveConfig({ ...minimalConfig(), ...extra }, { sinkSchema: testSinkSchema, env: {}, readFile: () => '', file: 'config/test.yaml' });
  return configWarnings(config);
}

const SECRET = 'whsec_0123456789abcdef';

describe('config warnings: webhooks', () => {
  it('says when webhooks are received on loopback only, naming the key that decides it', () => {
    expect(warningsOf({ hooks: { secret: SECRET } }).join('\n')).toContain('webhooks are received on server.host 127.0.0.1');
    expect(warningsOf({ hooks: { secret: SECRET, port: 9465 } }).join('\n')).toContain('webhooks are received on hooks.host 127.0.0.1');
    expect(warningsOf({ hooks: { secret: SECRET, port: 9465, host: '0.0.0.0' } })).toEqual([]);
    expect(warningsOf({})).toEqual([]);
  });

  it('says that a signature without a timestamp can be replayed', () => {
    const warnings = warningsOf({ hooks: { secret: SECRET, port: 9465, host: '0.0.0.0', signature: { timestampHeader: false } } });
    expect(warnings).toEqual([expect.stringContaining('hooks.signature.timestampHeader is false')]);
  });
});

const two = [
  { name: 'acme', apiKey: 'key-acme', v2Token: 'tok-acme' },
  { name: 'globex', apiKey: 'key-globex', v2Token: 'tok-globex' },
];
const reachable = { port: 9465, host: '0.0.0.0' };

// Issue 30 item 3: the path is not signed, so with one secret a delivery for acme passes at /hooks/globex.
describe('config warnings: one webhook secret for several businesses', () => {
  it('says so when businesses share hooks.secret and the body does not name its business', () => {
    const warnings = warningsOf({ businesses: two, hooks: { ...reachable, secret: SECRET } });
    expect(warnings).toEqual([
      "businesses acme, globex share one webhook secret (hooks.secret) and nothing signed names the business: any business's delivery can trigger another's sync; give each business its own businesses[].webhookSecret, or name the business in the signed body (hooks.businessFrom: { field: NAME })",
    ]);
    // A header is not signed: it names the business no better than the path.
    expect(warningsOf({ businesses: two, hooks: { ...reachable, secret: SECRET, businessFrom: { header: 'x-business' } } })).toHaveLength(1);
  });

  it('says so for businesses that share one webhookSecret of their own, and for a shared token whatever the body says', () => {
    const same = two.map((business) => ({ ...business, webhookSecret: SECRET }));
    expect(warningsOf({ businesses: same, hooks: reachable })).toEqual([expect.stringContaining('(the same businesses[].webhookSecret)')]);
    const token = warningsOf({ businesses: two, hooks: { ...reachable, auth: 'token', secret: SECRET, businessFrom: { field: 'account' } } });
    expect(token).toEqual([expect.stringMatching(/^businesses acme, globex share one webhook token \(hooks.secret\).*its own businesses\[\].webhookSecret$/)]);
  });

  it('is quiet when the signed body names the business, when each has its own secret, or for one business', () => {
    expect(warningsOf({ businesses: two, hooks: { ...reachable, secret: SECRET, businessFrom: { field: 'account' } } })).toEqual([]);
    const own = two.map((business, index) => ({ ...business, webhookSecret: `${SECRET}-${index}` }));
    expect(warningsOf({ businesses: own, hooks: { ...reachable, secret: SECRET } })).toEqual([]);
    expect(warningsOf({ hooks: { ...reachable, secret: SECRET } })).toEqual([]);
  });
});

// Issue 30 item 6: `server.token: a` passed check-config without a word.
describe('config warnings: short secrets', () => {
  it('names server.token, hooks.secret and each webhookSecret under 16 characters, never their values', () => {
    const businesses = [
      { ...two[0], webhookSecret: 'x1y2z3' },
      { ...two[1], webhookSecret: `${SECRET}-1` },
    ];
    const warnings = warningsOf({ server: { token: 'a' }, businesses, hooks: { ...reachable, secret: 'hook-secret' } });
    expect(warnings).toEqual([
      'server.token is shorter than 16 characters: it can be guessed; use at least 16 random characters (openssl rand -hex 16)',
      'hooks.secret, businesses[0].webhookSecret are shorter than 16 characters: one captured delivery lets anyone test guesses offline; use at least 16 random characters (openssl rand -hex 16)',
    ]);
    expect(warnings.join('\n')).not.toMatch(/x1y2z3|hook-secret/);
    expect(warningsOf({ server: { token: '0123456789abcdef' }, hooks: { ...reachable, secret: SECRET } })).toEqual([]);
  });
});
