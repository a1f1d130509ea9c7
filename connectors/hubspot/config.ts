import { z } from 'zod';
import { retrySchema, type RetryPolicy } from '../../src/http/index.js';
import { trackedNumbersSchema } from '../crm/index.js';
import { stateStoreConfigSchema } from '../state-stores/index.js';

const propertyName = z.string().regex(/^[a-z][a-z0-9_]*$/, { error: 'expected a HubSpot internal property name (lower case, digits, _)' });

/**
 * Overrides of the default call mapping (`mapping.ts`): a key set to another property name
 * writes that value there; `null` leaves the value out. Keys not given keep their default.
 */
const hubspotMappingSchema = z.strictObject({
  timestamp: propertyName.optional(),
  direction: propertyName.nullable().optional(),
  durationMs: propertyName.nullable().optional(),
  fromNumber: propertyName.nullable().optional(),
  toNumber: propertyName.nullable().optional(),
  recordingUrl: propertyName.nullable().optional(),
  body: propertyName.nullable().optional(),
  title: propertyName.nullable().optional(),
  status: propertyName.nullable().optional(),
  disposition: propertyName.nullable().optional(),
  /** Disposition written for voicemails; HubSpot's "Left voicemail" GUID by default. */
  voicemailDisposition: z.string().min(1).optional(),
  /** Record field (a config-declared column, or a built-in one) → the call property it is written to, as text. */
  fields: z.record(z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, { error: 'expected a column name' }), propertyName).optional(),
});

/** Client-side budget at HubSpot's published limits; HubSpot's headers lower it further when the portal is shared. */
const hubspotLimitsSchema = z.strictObject({
  /** Requests per rolling 10 seconds (HubSpot's `TEN_SECONDLY_ROLLING` policy): 100 Free/Starter, 190 Professional/Enterprise, 250 with the API limit increase. @defaultValue 100 */
  requestsPer10s: z.int().min(1).default(100),
  /** CRM search requests per second (search has its own limit, outside the 10-s window). @defaultValue 5 */
  searchPerSecond: z.int().min(1).default(5),
});

/** Retry policy for 429 (ten-secondly and secondly), 5xx and network errors: attempts per request including the first (6, at most 100), backoff 500 ms doubling to 30 s. */
const hubspotRetrySchema = retrySchema({ maxAttempts: 6, maxAttemptsCeiling: 100 });

/** The `sink:` section for `type: hubspot`. Unknown keys are an error that names them. */
export const hubspotConfigSchema = z.strictObject({
  type: z.literal('hubspot'),
  /** Private app access token (scopes: crm.objects.contacts.read and .write, crm.schemas.contacts.read and .write; see README). Never logged. */
  token: z.string().min(1),
  /** @defaultValue `https://api.hubapi.com` */
  baseUrl: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).default('https://api.hubapi.com'),
  /** @defaultValue `{ type: 'sqlite', path: './data/hubspot-state.db' }` */
  /** Where checkpoints, dead letters and the copy of what HubSpot acknowledged are kept: a SQL database, configured as its sink would be. */
  state: stateStoreConfigSchema.default({ type: 'sqlite', path: './data/hubspot-state.db' }),
  /** Unique custom property of calls that holds `${businessId}:${stream}:${id}`; created on first use. @defaultValue `callsync_id` */
  uniqueProperty: propertyName.default('callsync_id'),
  /** Associate each call with the contact whose phone or mobile phone is the caller's number. @defaultValue true */
  associateContacts: z.boolean().default(true),
  /**
   * The businesses' own numbers (any typing), besides those the `numbers` stream stores: the
   * customer on a call is the number that is not one of them. For businesses whose numbers
   * stream is not synced (v2 only). @defaultValue []
   */
  trackedNumbers: trackedNumbersSchema,
  /** Create a contact (with `phone` set) when none matches. @defaultValue false */
  createContacts: z.boolean().default(false),
  /**
   * Custom property (textarea, created on first use) that keeps the record as synced
   * (`{ source, fields, raw }` as JSON, for audits and reconciliation); `null` keeps none.
   * @defaultValue null
   */
  recordProperty: propertyName.nullable().default(null),
  mapping: hubspotMappingSchema.optional(),
  limits: hubspotLimitsSchema.default({ requestsPer10s: 100, searchPerSecond: 5 }),
  retry: hubspotRetrySchema,
});

export type HubSpotConfig = z.output<typeof hubspotConfigSchema>;
export type HubSpotMappingOverrides = z.output<typeof hubspotMappingSchema>;
export type HubSpotLimits = z.output<typeof hubspotLimitsSchema>;
export type HubSpotRetryPolicy = RetryPolicy;
