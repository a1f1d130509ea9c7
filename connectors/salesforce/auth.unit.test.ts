import { generateKeyPairSync, verify } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RENEW_MARGIN_MS, SalesforceAuth } from './auth.js';

const LOGIN = 'https://login.salesforce.com';
const keys = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});

let agent: MockAgent;
let dir: string;
beforeEach(async () => {
  agent = new MockAgent();
  agent.disableNetConnect();
  dir = await mkdtemp(join(tmpdir(), 'callsync-sf-auth-'));
});
afterEach(async () => {
  await agent.close();
  await rm(dir, { recursive: true, force: true });
});

async function jwtAuth(clock: { now(): number }, sessionMinutes = 120): Promise<{ auth: SalesforceAuth; secrets: Set<string> }> {
  const privateKeyPath = join(dir, 'key.pem');
  await writeFile(privateKeyPath, keys.privateKey);
  const secrets = new Set<string>();
  const auth = new SalesforceAuth({
    auth: { flow: 'jwt', consumerKey: 'ck', username: 'user@acme.example', privateKeyPath },
    loginUrl: LOGIN,
    sessionMinutes,
    dispatcher: agent,
    logger: pino({ level: 'silent' }),
    clock,
    clean: (text) => text,
    secrets,
  });
  return { auth, secrets };
}

/** Answers token requests with `token-1`, `token-2`, …, keeping each form it received. */
function tokenEndpoint(forms: URLSearchParams[], extra: Record<string, unknown> = {}): void {
  let serial = 0;
  agent
    .get(LOGIN)
    .intercept({ path: '/services/oauth2/token', method: 'POST' })
    .reply((request) => {
      forms.push(new URLSearchParams(typeof request.body === 'string' ? request.body : ''));
      serial += 1;
      return { statusCode: 200, data: { access_token: `token-${serial}`, instance_url: 'https://acme.my.salesforce.com', token_type: 'Bearer', ...extra } };
    })
    .persist();
}

describe('SalesforceAuth', () => {
  it('sends an RS256 assertion with iss, sub, aud and a near exp, signed by the configured key', async () => {
    const clock = { now: () => 1_700_000_000_000 };
    const { auth, secrets } = await jwtAuth(clock);
    const forms: URLSearchParams[] = [];
    tokenEndpoint(forms);
    expect(await auth.session()).toMatchObject({ accessToken: 'token-1', instanceUrl: 'https://acme.my.salesforce.com' });
    expect(forms[0]?.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    const [header, claims, signature] = (forms[0]?.get('assertion') ?? '').split('.');
    expect(JSON.parse(Buffer.from(header ?? '', 'base64url').toString())).toEqual({ alg: 'RS256' });
    expect(JSON.parse(Buffer.from(claims ?? '', 'base64url').toString())).toEqual({ iss: 'ck', sub: 'user@acme.example', aud: LOGIN, exp: 1_700_000_180 });
    expect(verify('RSA-SHA256', Buffer.from(`${header}.${claims}`), keys.publicKey, Buffer.from(signature ?? '', 'base64url'))).toBe(true);
    expect(secrets).toEqual(new Set(['token-1']));
  });

  it('reuses the session, renews it before sessionMinutes run out (or expires_in), and at once after invalidate', async () => {
    const clock = { at: 0, now: () => clock.at };
    const { auth } = await jwtAuth(clock, 30);
    const forms: URLSearchParams[] = [];
    tokenEndpoint(forms);
    const [a, b] = await Promise.all([auth.session(), auth.session()]);
    expect([a.accessToken, b.accessToken, forms.length]).toEqual(['token-1', 'token-1', 1]);
    clock.at = 30 * 60_000 - RENEW_MARGIN_MS - 1;
    expect((await auth.session()).accessToken).toBe('token-1');
    clock.at += 1;
    expect((await auth.session()).accessToken).toBe('token-2');
    auth.invalidate('token-1');
    expect((await auth.session()).accessToken).toBe('token-2');
    auth.invalidate('token-2');
    expect((await auth.session()).accessToken).toBe('token-3');
  });

  it('names sink.auth.privateKeyPath when the key file is missing or not a key, without asking Salesforce', async () => {
    const clock = { now: () => 0 };
    const { auth } = await jwtAuth(clock);
    await writeFile(join(dir, 'key.pem'), 'not a key');
    await expect(auth.session()).rejects.toThrow(/^sink\.auth\.privateKeyPath: it is not a PEM RSA private key/);
    await rm(join(dir, 'key.pem'));
    await expect(auth.session()).rejects.toThrow(/^sink\.auth\.privateKeyPath: the file cannot be read/);
  });

  it.each([
    ['invalid_grant', 'invalid assertion', /sink\.auth\.privateKeyPath does not hold the private key/],
    ['invalid_client_id', 'client identifier invalid', /sink\.auth\.consumerKey is not the connected app's consumer key/],
    ['invalid_grant', "user hasn't approved this consumer", /sink\.auth\.username is not pre-authorized/],
    ['invalid_grant', 'audience is invalid', /sink\.loginUrl is not the org's login URL/],
  ])('turns %s (%s) into one line naming the key to fix', async (error, description, fix) => {
    const { auth } = await jwtAuth({ now: () => 0 });
    agent.get(LOGIN).intercept({ path: '/services/oauth2/token', method: 'POST' }).reply(400, { error, error_description: description });
    const failure = await auth.session().then(
      () => undefined,
      (caught: unknown) => caught as Error,
    );
    expect(failure?.message).toMatch(fix);
    expect(failure?.message).not.toMatch(/\n/);
    expect(failure).toMatchObject({ problem: 'auth', kind: 'auth' });
  });
});
