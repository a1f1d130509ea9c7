import { invalidAnswer } from './classify.js';
import { HubSpotError, isHubSpotError } from './errors.js';
import type { HubSpotHttp } from './client.js';

/** The definition created when the unique property is missing. */
function uniquePropertyDefinition(name: string): Record<string, string | boolean> {
  return {
    name,
    label: 'callsync ID',
    description: 'business:stream:id of the call-tracking record synced by callsync; unique, used for idempotent upserts.',
    type: 'string',
    fieldType: 'text',
    groupName: 'callinformation',
    hasUniqueValue: true,
  };
}

/**
 * Makes sure the calls object has `name` as a unique-value property: reads it, creates it on
 * 404, and re-reads after a 409 (another replica created it first). An existing property that
 * is not unique is a configuration error: upserts by it would be refused.
 */
export async function ensureUniqueProperty(http: HubSpotHttp, name: string): Promise<'existed' | 'created'> {
  const path = `/crm/v3/properties/calls/${encodeURIComponent(name)}`;
  const existing = await readProperty(http, path);
  if (existing !== undefined) {
    assertUnique(existing, name, path);
    return 'existed';
  }
  try {
    await http.send('POST', '/crm/v3/properties/calls', uniquePropertyDefinition(name));
    return 'created';
  } catch (error) {
    if (!isHubSpotError(error) || error.kind !== 'conflict') throw error;
    const raced = await readProperty(http, path);
    if (raced === undefined) throw error;
    assertUnique(raced, name, path);
    return 'existed';
  }
}

async function readProperty(http: HubSpotHttp, path: string): Promise<Record<string, unknown> | undefined> {
  try {
    const { body } = await http.send('GET', path);
    return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  } catch (error) {
    if (isHubSpotError(error) && error.kind === 'not_found') return undefined;
    throw error;
  }
}

function assertUnique(property: Record<string, unknown>, name: string, path: string): void {
  if (property.hasUniqueValue === true) return;
  const reason = `property "${name}" exists on calls but is not unique (hasUniqueValue false); set uniqueProperty to another name`;
  throw new HubSpotError({ method: 'GET', path }, invalidAnswer(reason));
}
