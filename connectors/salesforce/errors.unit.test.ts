import { describe, expect, it } from 'vitest';
import { failureFix } from '../../src/entry/cli/backfill/failure-fix.js';
import { explainFailure } from '../../src/entry/cli/failure/explain.js';
import { describeStreamFailure } from '../../src/engine/state/index.js';
import { describeSink } from '../registry.js';
import { salesforceConfigSchema } from './config.js';
import { SalesforceError, salesforceFix } from './errors.js';

const config = salesforceConfigSchema.parse({
  type: 'salesforce',
  auth: { flow: 'jwt', consumerKey: 'key', username: 'integration@acme.example', privateKeyPath: '/keys/salesforce.key' },
});

describe('the fix of a Salesforce failure', () => {
  it.each<[string, Parameters<typeof salesforceFix>, RegExp]>([
    ['a refused token request', ['auth', 400, 'invalid_grant'], /sink\.auth\b.*sink\.loginUrl/],
    ['a session refused right after renewal', ['auth', 401, 'INVALID_SESSION_ID'], /sink\.auth\.username/],
    ['a Task field the org lacks', ['setup', 400, 'INVALID_FIELD'], /sink\.externalIdField.*sink\.mapping\.fields/],
    ['the allocation used up', ['allocation', undefined, undefined], /sink\.limits\.share.*sink\.limits\.maxWaitSeconds/],
    ['no API access', ['refused', 403, 'API_DISABLED_FOR_ORG'], /sink\.auth\.username/],
    ['an API version the org lacks', ['refused', 404, 'NOT_FOUND'], /sink\.apiVersion/],
    ['a malformed request', ['refused', 400, 'JSON_PARSER_ERROR'], /sink\.mapping\.fields.*sink\.apiVersion/],
    ['an answer cut off, retries used up', ['transient', undefined, undefined], /sink\.retry\.maxAttempts/],
    ['5xx, retries used up', ['transient', 503, undefined], /sink\.retry\.maxAttempts/],
  ])('%s names the Salesforce key to change', (_name, args, key) => {
    const fix = salesforceFix(...args);
    expect(fix).toMatch(key);
    expect(fix).not.toMatch(/sink\.(url|path)\b|--verbose/);
  });

  it('is carried by every SalesforceError, a fix given where it was raised winning', () => {
    expect(new SalesforceError('transient', 'x').fix).toBe(salesforceFix('transient', undefined, undefined));
    expect(new SalesforceError('setup', 'x', { fix: 'tick "Unique" on sink.externalIdField' }).fix).toBe('tick "Unique" on sink.externalIdField');
  });

  it("reaches the backfill's fix line when a write fails, in place of sink.url or sink.path", () => {
    const cutOff = new SalesforceError('transient', 'salesforce PATCH /services/data/v62.0/composite: network: other side closed (after 5 attempts)');
    const fix = failureFix(describeStreamFailure(cutOff), 'acme', 0);
    expect(fix).toMatch(/^fix: .*sink\.retry\.maxAttempts/);
    expect(fix).not.toContain('sink.url or sink.path');
  });

  it('reaches the fix line of a failure at start (prepare), in place of "run again with --verbose"', () => {
    const refused = new SalesforceError(
      'auth',
      "salesforce refused the token request (invalid_client_id): sink.auth.consumerKey is not the connected app's consumer key",
      {
        status: 400,
        errorCode: 'invalid_client_id',
        fix: "set sink.auth.consumerKey to the connected app's consumer key",
      },
    );
    const said = explainFailure(refused, describeSink(config)).message;
    expect(said.split('\n')).toEqual([
      "Salesforce at https://login.salesforce.com (sink.loginUrl): salesforce refused the token request (invalid_client_id): sink.auth.consumerKey is not the connected app's consumer key",
      "fix: set sink.auth.consumerKey to the connected app's consumer key",
    ]);
  });
});

describe('the Salesforce lock name', () => {
  const jwt = (username: string, loginUrl = 'https://login.salesforce.com') =>
    salesforceConfigSchema.parse({ type: 'salesforce', loginUrl, auth: { flow: 'jwt', consumerKey: 'key', username, privateKeyPath: '/k' } });
  const credentials = (consumerKey: string, loginUrl: string) =>
    salesforceConfigSchema.parse({ type: 'salesforce', loginUrl, auth: { flow: 'clientCredentials', consumerKey, consumerSecret: 's' } });
  const lock = (sink: ReturnType<typeof jwt>): string => describeSink(sink).lockName;

  it('names the org, so two orgs behind one login URL never wait for each other', () => {
    expect(lock(jwt('sync@acme.example'))).not.toBe(lock(jwt('sync@globex.example')));
    expect(lock(credentials('k1', 'https://acme.my.salesforce.com'))).not.toBe(lock(credentials('k1', 'https://globex.my.salesforce.com')));
  });

  it('is the same for two configs writing one org, whatever login URL they ask a token at', () => {
    expect(lock(jwt('Sync@Acme.example'))).toBe(lock(jwt('sync@acme.example', 'https://acme.my.salesforce.com')));
    expect(lock(jwt('sync@acme.example'))).not.toContain('key');
  });
});
