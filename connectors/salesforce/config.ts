import { z } from 'zod';
import { retrySchema, type RetryPolicy } from '../../src/http/index.js';
import { trackedNumbersSchema } from '../crm/index.js';
import { stateStoreConfigSchema } from '../state-stores/index.js';

/** A field's API name: standard (`Phone`) or custom (`Callsync_Id__c`). */
const fieldName = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,39}(__c)?$/, { error: 'expected a Salesforce field API name, e.g. Phone or Callsync_Id__c' });

/**
 * OAuth 2.0 JWT bearer flow: the connected app's consumer key, the integration user, and the
 * private key whose certificate is uploaded to the connected app (connectors/salesforce/README.md, one-time org setup).
 */
const jwtAuthSchema = z.strictObject({
  flow: z.literal('jwt'),
  /** The connected app's consumer key (`iss`). */
  consumerKey: z.string().min(1),
  /** The integration user's username (`sub`); pre-authorized for the connected app. */
  username: z.string().min(1),
  /** PEM file of the RSA private key; read at start, never logged. */
  privateKeyPath: z.string().min(1),
});

/** OAuth 2.0 client credentials flow: the connected app's key and secret, run as its "Run As" user. */
const clientCredentialsAuthSchema = z.strictObject({
  flow: z.literal('clientCredentials'),
  consumerKey: z.string().min(1),
  /** Never logged. */
  consumerSecret: z.string().min(1),
});

/** Which Contacts and Leads a call's other party is looked up in. */
const whoSchema = z.strictObject({
  /** Objects searched, in order of preference: a Contact wins over a Lead by default. @defaultValue ['Contact', 'Lead'] */
  objects: z
    .array(z.enum(['Contact', 'Lead']))
    .min(1)
    .default(['Contact', 'Lead']),
  /** Phone fields compared on both objects; custom ones must exist on both. @defaultValue ['Phone', 'MobilePhone'] */
  phoneFields: z.array(fieldName).min(1).max(5).default(['Phone', 'MobilePhone']),
  /** Create a Lead (with `Phone` set) for a caller found nowhere. @defaultValue false */
  createLeads: z.boolean().default(false),
  /** `LastName` of a created Lead (required by Salesforce). @defaultValue 'Unknown caller' */
  leadLastName: z.string().min(1).max(80).default('Unknown caller'),
  /** `Company` of a created Lead (required by Salesforce). @defaultValue '[not provided]' */
  leadCompany: z.string().min(1).max(255).default('[not provided]'),
});

/**
 * The org's API allocation as callsync may use it. Salesforce counts every REST request (a
 * composite request once) against a rolling 24-hour allocation shared by every integration.
 */
const salesforceLimitsSchema = z.strictObject({
  /** Share of the org's allocation (learnt from `Sforce-Limit-Info`) callsync may use. @defaultValue 0.5 */
  share: z.number().gt(0).max(1).default(0.5),
  /** A fixed ceiling of requests per window on top of `share`; null: `share` alone. @defaultValue null */
  requestsPer24h: z.int().min(1).nullable().default(null),
  /** Salesforce's window (rolling 24 h); only a test changes it. @defaultValue 86400 */
  windowSeconds: z.int().min(1).default(86_400),
  /** Longest wait for the allocation inside one write; a longer one fails the stream with the time it can go on. @defaultValue 900 */
  maxWaitSeconds: z.int().min(0).default(900),
});

/** Retries of 5xx, network errors and `UNABLE_TO_LOCK_ROW`: attempts including the first (5, at most 20), backoff 500 ms doubling to 30 s. */
const salesforceRetrySchema = retrySchema({ maxAttempts: 5, maxAttemptsCeiling: 20 });

/** The `sink:` section for `type: salesforce`. Unknown keys are an error that names them. */
export const salesforceConfigSchema = z.strictObject({
  type: z.literal('salesforce'),
  /** Where tokens are asked for: `https://login.salesforce.com`, `https://test.salesforce.com` (sandboxes) or the org's My Domain URL. @defaultValue `https://login.salesforce.com` */
  loginUrl: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).default('https://login.salesforce.com'),
  /** REST API version (46.0 or later: sObject Collections upsert). @defaultValue '62.0' */
  apiVersion: z
    .string()
    .regex(/^\d{2}\.0$/, { error: 'expected an API version such as 62.0' })
    .default('62.0'),
  auth: z.discriminatedUnion('flow', [jwtAuthSchema, clientCredentialsAuthSchema]),
  /** The org's session timeout (Setup → Session Settings); a token is renewed before it runs out. @defaultValue 120 */
  sessionMinutes: z
    .int()
    .min(5)
    .max(24 * 60)
    .default(120),
  /** Checkpoints, dead letters, the copy of what Salesforce acknowledged, and the Leads callsync created. @defaultValue `{ type: 'sqlite', path: './data/salesforce-state.db' }` */
  state: stateStoreConfigSchema.default({ type: 'sqlite', path: './data/salesforce-state.db' }),
  /** Task text field, External ID and Unique, holding `${businessId}:${stream}:${id}`. @defaultValue 'Callsync_Id__c' */
  externalIdField: fieldName.default('Callsync_Id__c'),
  /** Task long text field (131,072) that keeps the record as synced (`{ source, fields, raw }`); null keeps none. @defaultValue null */
  recordField: fieldName.nullable().default(null),
  /** Task URL or text field for the recording URL; null leaves it out. @defaultValue null */
  recordingUrlField: fieldName.nullable().default(null),
  /** Task `Status` written. @defaultValue 'Completed' */
  status: z.string().min(1).max(40).default('Completed'),
  /** What a record deleted upstream does to its Task: `delete` (to the recycle bin) or `mark` (sets `deletedField`). @defaultValue 'delete' */
  onDelete: z.enum(['delete', 'mark']).default('delete'),
  /** Task checkbox set by `onDelete: mark`. @defaultValue 'Callsync_Deleted__c' */
  deletedField: fieldName.default('Callsync_Deleted__c'),
  /** Look up each call's other party in Contacts and Leads and set the Task's `WhoId`; null: no lookup. */
  who: whoSchema.nullable().default({
    objects: ['Contact', 'Lead'],
    phoneFields: ['Phone', 'MobilePhone'],
    createLeads: false,
    leadLastName: 'Unknown caller',
    leadCompany: '[not provided]',
  }),
  /** The business's own numbers, besides the `numbers` stream (see connectors/crm). */
  trackedNumbers: trackedNumbersSchema,
  mapping: z
    .strictObject({
      /** Record field (a declared column or a built-in one) → the Task field it is written to. */
      fields: z.record(z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, { error: 'expected a column name' }), fieldName).optional(),
    })
    .optional(),
  limits: salesforceLimitsSchema.default({ share: 0.5, requestsPer24h: null, windowSeconds: 86_400, maxWaitSeconds: 900 }),
  retry: salesforceRetrySchema,
});

export type SalesforceConfig = z.output<typeof salesforceConfigSchema>;
export type SalesforceAuthConfig = SalesforceConfig['auth'];
export type SalesforceLimits = z.output<typeof salesforceLimitsSchema>;
export type SalesforceRetry = RetryPolicy;
export type WhoConfig = z.output<typeof whoSchema>;
