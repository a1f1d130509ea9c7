import { generateKeyPairSync, sign } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startFakeSalesforce, type FakeSalesforce, type FakeSalesforceOptions } from '../../fakes/salesforce/index.js';

// The fake itself, against what Salesforce documents; the connector's tests build on it.

const keys = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});
const otherKeys = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});

let fake: FakeSalesforce | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

function jwt(privateKey: string, claims: Record<string, unknown>): string {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ alg: 'RS256' })}.${part(claims)}`;
  return `${input}.${sign('RSA-SHA256', Buffer.from(input), privateKey).toString('base64url')}`;
}

async function start(options: FakeSalesforceOptions = {}): Promise<{
  fake: FakeSalesforce;
  call: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: unknown; limit: string | undefined }>;
}> {
  fake = await startFakeSalesforce({ certificate: keys.publicKey, ...options });
  const token = await tokenFor(fake, keys.privateKey);
  const started = fake;
  return {
    fake: started,
    async call(method, path, body) {
      const response = await request(`${started.baseUrl}/services/data/${started.version}${path}`, {
        method: method as 'GET',
        headers: { authorization: `Bearer ${String(token.access_token)}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.body.text();
      return {
        status: response.statusCode,
        body: text === '' ? undefined : (JSON.parse(text) as unknown),
        limit: response.headers['sforce-limit-info'] as string | undefined,
      };
    },
  };
}

async function tokenFor(target: FakeSalesforce, privateKey: string): Promise<Record<string, unknown>> {
  const assertion = jwt(privateKey, {
    iss: target.consumerKey,
    sub: target.username,
    aud: 'https://login.salesforce.com',
    exp: Math.floor(Date.now() / 1000) + 180,
  });
  const response = await request(`${target.baseUrl}/services/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
  });
  return { status: response.statusCode, ...((await response.body.json()) as Record<string, unknown>) };
}

const task = (id: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  attributes: { type: 'Task' },
  Callsync_Id__c: id,
  Subject: `call ${id}`,
  ...extra,
});

describe('fake Salesforce', () => {
  it('issues a token for a JWT signed with the certificate’s key and refuses another key', async () => {
    const { fake: org } = await start();
    const good = await tokenFor(org, keys.privateKey);
    expect(good).toMatchObject({ status: 200, token_type: 'Bearer', instance_url: org.baseUrl });
    expect(good).not.toHaveProperty('expires_in');
    expect(await tokenFor(org, otherKeys.privateKey)).toEqual({ status: 400, error: 'invalid_grant', error_description: 'invalid assertion' });
  });

  it('answers every request with Sforce-Limit-Info and refuses past the allocation with 403 REQUEST_LIMIT_EXCEEDED', async () => {
    const { fake: org, call } = await start({ dailyAllocation: 2 });
    expect((await call('GET', '/limits')).limit).toBe('api-usage=1/2');
    expect((await call('GET', '/sobjects/Task/describe')).limit).toBe('api-usage=2/2');
    const refused = await call('GET', '/limits');
    expect(refused).toMatchObject({ status: 403, body: [{ errorCode: 'REQUEST_LIMIT_EXCEEDED' }], limit: 'api-usage=2/2' });
    expect(org.refusedForAllocation()).toBe(1);
  });

  it('upserts by external id in request order, refuses 201 records, fails locked rows, and answers 401 once sessions expire', async () => {
    const { fake: org, call } = await start();
    const tooMany = await call('PATCH', '/composite/sobjects/Task/Callsync_Id__c', {
      allOrNone: false,
      records: Array.from({ length: 201 }, (_, index) => task(`t${index}`)),
    });
    expect(tooMany).toMatchObject({ status: 400, body: [{ errorCode: 'EXCEEDED_ID_LIMIT' }] });
    org.lockRows(1);
    const first = await call('PATCH', '/composite/sobjects/Task/Callsync_Id__c', {
      allOrNone: false,
      records: [task('a'), task('b'), task('c', { CallType: 'Sideways' })],
    });
    expect(first.body).toMatchObject([
      { success: false, errors: [{ statusCode: 'UNABLE_TO_LOCK_ROW' }] },
      { success: true, created: true },
      { success: false, errors: [{ statusCode: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST', fields: ['CallType'] }] },
    ]);
    const again = await call('PATCH', '/composite/sobjects/Task/Callsync_Id__c', { allOrNone: false, records: [task('b', { Subject: 'changed' }), task('a')] });
    expect(again.body).toMatchObject([
      { success: true, created: false },
      { success: true, created: true },
    ]);
    expect(
      org
        .tasks()
        .map((each) => each.fields.Subject)
        .sort(),
    ).toEqual(['call a', 'changed']);
    org.expireSessions();
    expect(await call('GET', '/limits')).toMatchObject({ status: 401, body: [{ errorCode: 'INVALID_SESSION_ID' }] });
  });

  it('pages SOQL results through nextRecordsUrl and matches LIKE and IN on phone fields', async () => {
    const { call } = await start({
      queryBatchSize: 2,
      contacts: [
        { LastName: 'a', Phone: '(415) 555-0101' },
        { LastName: 'b', MobilePhone: '415.555.0102' },
        { LastName: 'c', Phone: '+14155550103' },
        { LastName: 'd', Phone: '212 555 0199' },
      ],
    });
    const soql =
      "SELECT Id, Phone, MobilePhone FROM Contact WHERE Phone LIKE '%4%1%5%5%5%5%0%1%0%1' OR MobilePhone LIKE '%415%555%0102' OR Phone IN ('+14155550103')";
    const first = await call('GET', `/query?q=${encodeURIComponent(soql)}`);
    expect(first.body).toMatchObject({ totalSize: 3, done: false, records: [{ Phone: '(415) 555-0101' }, { MobilePhone: '415.555.0102' }] });
    const next = (first.body as { nextRecordsUrl: string }).nextRecordsUrl;
    const rest = await call('GET', next.replace(/^\/services\/data\/v\d+\.\d/, ''));
    expect(rest.body).toMatchObject({ totalSize: 3, done: true, records: [{ Phone: '+14155550103' }] });
    expect(rest.body).not.toHaveProperty('nextRecordsUrl');
  });

  it('finds with SOSL only what the lagging index has caught up with; SOQL sees it at once', async () => {
    const { fake: org, call } = await start({ indexLagMs: 60_000, leads: [{ LastName: 'old', Company: 'x', Phone: '415-555-0111' }] });
    org.add('Lead', { LastName: 'new', Company: 'x', Phone: '415-555-0112' });
    const sosl = await call('GET', `/search?q=${encodeURIComponent('FIND {4155550111 OR 4155550112} IN PHONE FIELDS RETURNING Lead(Id, Phone)')}`);
    expect(sosl.body).toMatchObject({ searchRecords: [{ Phone: '415-555-0111' }] });
    expect((sosl.body as { searchRecords: unknown[] }).searchRecords).toHaveLength(1);
    const soql = await call('GET', `/query?q=${encodeURIComponent("SELECT Id FROM Lead WHERE Phone = '415-555-0112'")}`);
    expect(soql.body).toMatchObject({ totalSize: 1 });
  });

  it('counts a composite request once and answers its subrequests in order', async () => {
    const { fake: org, call } = await start();
    const before = org.usage();
    const answer = await call('POST', '/composite', {
      compositeRequest: [
        { method: 'GET', url: `/services/data/${org.version}/query?q=${encodeURIComponent('SELECT Id FROM Contact')}`, referenceId: 'contacts' },
        { method: 'POST', url: `/services/data/${org.version}/sobjects/Lead`, referenceId: 'lead', body: { LastName: 'x' } },
      ],
    });
    expect(answer.body).toMatchObject({
      compositeResponse: [
        { referenceId: 'contacts', httpStatusCode: 200 },
        { referenceId: 'lead', httpStatusCode: 400, body: [{ errorCode: 'REQUIRED_FIELD_MISSING' }] },
      ],
    });
    expect(org.usage() - before).toBe(1);
  });
});
