import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { SalesforceAuthConfig } from './config.js';
import { SalesforceError, salesforceProblem } from './errors.js';
import { postForm, type TokenSource } from './client.js';

/** A session is renewed this long before the org's session timeout would end it. */
export const RENEW_MARGIN_MS = 5 * 60_000;
/** Lifetime of a JWT assertion: Salesforce accepts an `exp` at most a few minutes ahead. */
const ASSERTION_SECONDS = 180;

interface SalesforceAuthOptions {
  readonly auth: SalesforceAuthConfig;
  readonly loginUrl: string;
  readonly sessionMinutes: number;
  readonly dispatcher: Dispatcher;
  readonly logger: Logger;
  readonly clock: { now(): number };
  readonly clean: (text: string) => string;
  /** Every token this flow obtains is added here, so the redactor scrubs it from any output. */
  readonly secrets: Set<string>;
}

interface Session {
  readonly accessToken: string;
  readonly instanceUrl: string;
  readonly renewAt: number;
}

/**
 * Sessions from Salesforce's token endpoint, by the OAuth 2.0 JWT bearer flow (an RS256 assertion
 * signed with the private key whose certificate the connected app holds) or the client
 * credentials flow. One request at a time asks for a token; the session is renewed before the
 * org's timeout (`sessionMinutes`, or `expires_in` when the answer has it) and when Salesforce
 * says it is gone. A refusal names the config key that fixes it.
 */
export class SalesforceAuth implements TokenSource {
  readonly #options: SalesforceAuthOptions;
  #current: Session | undefined;
  #pending: Promise<Session> | undefined;
  #key: Promise<KeyObject> | undefined;

  constructor(options: SalesforceAuthOptions) {
    this.#options = options;
  }

  async session(): Promise<Session> {
    const current = this.#current;
    if (current !== undefined && this.#options.clock.now() < current.renewAt) return current;
    this.#pending ??= this.#fetch()
      .then((session) => {
        this.#current = session;
        return session;
      })
      .finally(() => {
        this.#pending = undefined;
      });
    return this.#pending;
  }

  invalidate(accessToken: string): void {
    if (this.#current?.accessToken === accessToken) this.#current = undefined;
  }

  async #fetch(): Promise<Session> {
    const { auth, loginUrl, clock, logger } = this.#options;
    const form = new URLSearchParams();
    if (auth.flow === 'jwt') {
      form.set('grant_type', 'urn:ietf:params:oauth:grant-type:jwt-bearer');
      form.set('assertion', await this.#assertion());
    } else {
      form.set('grant_type', 'client_credentials');
      form.set('client_id', auth.consumerKey);
      form.set('client_secret', auth.consumerSecret);
    }
    const started = clock.now();
    const answer = await postForm(this.#options.dispatcher, new URL('/services/oauth2/token', loginUrl), form, this.#options.clean);
    const body = answer.body as Record<string, unknown> | undefined;
    if (answer.status !== 200 || typeof body?.access_token !== 'string' || typeof body.instance_url !== 'string') {
      throw this.#refusal(answer.status, answer.body);
    }
    this.#options.secrets.add(body.access_token);
    const lifetimeMs = typeof body.expires_in === 'number' ? body.expires_in * 1000 : this.#options.sessionMinutes * 60_000;
    logger.debug({ flow: auth.flow, instanceUrl: body.instance_url }, 'salesforce session opened');
    return { accessToken: body.access_token, instanceUrl: body.instance_url, renewAt: started + Math.max(lifetimeMs / 2, lifetimeMs - RENEW_MARGIN_MS) };
  }

  async #assertion(): Promise<string> {
    const { auth, loginUrl, clock } = this.#options;
    if (auth.flow !== 'jwt') throw new Error('not the JWT flow');
    const key = await this.#privateKey(auth.privateKeyPath);
    const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
    const claims = { iss: auth.consumerKey, sub: auth.username, aud: loginUrl.replace(/\/$/, ''), exp: Math.floor(clock.now() / 1000) + ASSERTION_SECONDS };
    const input = `${part({ alg: 'RS256' })}.${part(claims)}`;
    return `${input}.${sign('RSA-SHA256', Buffer.from(input), key).toString('base64url')}`;
  }

  #privateKey(path: string): Promise<KeyObject> {
    this.#key ??= readFile(path, 'utf8')
      .then((pem) => createPrivateKey(pem))
      .catch((error: unknown) => {
        this.#key = undefined;
        const why = isMissing(error) ? 'the file cannot be read' : 'it is not a PEM RSA private key';
        throw new SalesforceError('auth', `sink.auth.privateKeyPath: ${why} (${path}); point it to the private key whose certificate the connected app holds`, {
          fix: 'point sink.auth.privateKeyPath to the PEM private key whose certificate the connected app holds (connectors/salesforce/README.md, one-time org setup, step 1)',
        });
      });
    return this.#key;
  }

  /** The token endpoint's refusal as one line naming the config key to fix. */
  #refusal(status: number, body: unknown): SalesforceError {
    const { auth } = this.#options;
    const { errorCode, message } = salesforceProblem(body);
    const said = `${errorCode ?? status}${message === undefined ? '' : `: ${message}`}`;
    let why: string;
    let fix: string;
    if (errorCode === 'invalid_client_id' || errorCode === 'invalid_client') {
      [why, fix] =
        auth.flow === 'jwt'
          ? [
              "sink.auth.consumerKey is not the connected app's consumer key",
              "set sink.auth.consumerKey to the connected app's consumer key (App Manager → the app → View)",
            ]
          : [
              'sink.auth.consumerKey or sink.auth.consumerSecret is wrong',
              "set sink.auth.consumerKey and sink.auth.consumerSecret to the connected app's key and secret",
            ];
    } else if (auth.flow === 'jwt' && /approved|user/i.test(message ?? '')) {
      why = 'sink.auth.username is not pre-authorized for the connected app (connectors/salesforce/README.md, one-time org setup, step 2)';
      fix = "pre-authorize sink.auth.username: the app's Edit Policies → Admin approved users are pre-authorized, and add the user's profile or permission set";
    } else if (auth.flow === 'jwt' && /audience/i.test(message ?? '')) {
      why = "sink.loginUrl is not the org's login URL (login.salesforce.com, test.salesforce.com or My Domain)";
      fix = "set sink.loginUrl to the org's login URL: https://login.salesforce.com, https://test.salesforce.com (sandboxes) or its My Domain URL";
    } else if (auth.flow === 'jwt') {
      why = 'sink.auth.privateKeyPath does not hold the private key of the certificate uploaded to the connected app';
      fix = 'point sink.auth.privateKeyPath to the private key of the certificate uploaded to the connected app, or upload the matching certificate';
    } else {
      why = 'the connected app does not allow the client credentials flow, or has no "Run As" user (connectors/salesforce/README.md, one-time org setup)';
      fix = 'tick "Enable Client Credentials Flow" on the connected app, set its Run As user, and use the org\'s My Domain URL as sink.loginUrl';
    }
    return new SalesforceError('auth', this.#options.clean(`salesforce refused the token request (${said}): ${why}`), {
      status,
      fix,
      ...(errorCode === undefined ? {} : { errorCode }),
    });
  }
}

function isMissing(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' && ['ENOENT', 'EACCES', 'EISDIR'].includes(error.code)
  );
}
