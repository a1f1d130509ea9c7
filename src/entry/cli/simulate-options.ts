import { InvalidArgumentError } from 'commander';
import type { OutboundToNumber, RecordingSize, SimulatorOptions } from '../../../simulator/index.js';

/** Raw commander values of `callsync simulate`. */
export interface SimulateFlags {
  port: number;
  host: string;
  businesses: number;
  calls: number;
  voicemails: number;
  numbers: number;
  seed: number;
  rateLimit: number | false;
  rateWindowMs: number;
  cursorTtlMs?: number;
  cursors?: 'fresh' | 'stable';
  callsPerSecond?: number;
  voicemailsPerSecond?: number;
  errorRate?: number;
  slowRate?: number;
  slowMs?: number;
  truncateRate?: number;
  badJsonRate?: number;
  resetRate?: number;
  v1Order?: 'oldest' | 'newest';
  outboundToNumber?: OutboundToNumber;
  v2LimitCap?: number;
  v2FractionalUuid?: boolean;
  v1LimitCap?: number;
  stuckCursor?: boolean;
  cyclingCursor?: boolean;
  emptyPagesForever?: boolean;
  ignoreOffset?: boolean;
  negativeTotal?: boolean;
  retryAfter429?: string;
  exhaustedUntil?: number;
  hugeBodyBytes?: number;
  trickleMs?: number;
  echoCredentialsAt?: number;
  unavailableRequests?: number;
  unavailableRetryAfter?: string;
  listShare?: number;
  deepRecord?: number;
  loneSurrogateRecord?: boolean;
  oversizedRecordBytes?: number;
  webhooks?: string;
  webhookSecret?: string;
  webhookMaxDelayMs?: number;
  webhookDropRate?: number;
  webhookDuplicateRate?: number;
  webhookReorderRate?: number;
  recordingsBaseUrl?: string;
  providerBaseUrl?: string;
  recordingBytes?: RecordingSize;
  recordingLinkTtlMs?: number;
  recordingsPort?: number;
  recordingsOnOwnPort?: boolean;
  recordingsRateLimit?: number | 'api';
  recordingsRateWindowMs?: number;
  providerRedirect?: boolean;
  json?: boolean;
}

const BROKEN_PAGING_FLAGS = ['stuckCursor', 'cyclingCursor', 'emptyPagesForever', 'ignoreOffset', 'negativeTotal'] as const;

export function integerArg(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a non-negative integer');
  return Number(value);
}

export function rateArg(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a non-negative number');
  return n;
}

export function probabilityArg(value: string): number {
  const n = rateArg(value);
  if (n > 1) throw new InvalidArgumentError('expected a probability from 0 to 1');
  return n;
}

export function orderArg(value: string): 'oldest' | 'newest' {
  if (value !== 'oldest' && value !== 'newest') throw new InvalidArgumentError('expected oldest or newest');
  return value;
}

export function cursorsArg(value: string): 'fresh' | 'stable' {
  if (value !== 'fresh' && value !== 'stable') throw new InvalidArgumentError('expected fresh or stable');
  return value;
}

export function outboundToNumberArg(value: string): OutboundToNumber {
  if (value !== 'customer' && value !== 'tracked') throw new InvalidArgumentError('expected customer or tracked');
  return value;
}

/** Bytes per recording: `N` for all, or `MIN-MAX` drawn per recording. */
export function recordingBytesArg(value: string): RecordingSize {
  const range = /^(\d+)-(\d+)$/.exec(value);
  if (range !== null) return { min: Number(range[1]), max: Number(range[2]) };
  if (/^\d+$/.test(value)) return Number(value);
  throw new InvalidArgumentError('expected bytes per recording (65536) or a range (4096-65536)');
}

/** A budget of its own (requests per window) or `api` (downloads count in the API's bucket). */
export function recordingsRateArg(value: string): number | 'api' {
  return value === 'api' ? 'api' : integerArg(value);
}

function recordingsOptions(flags: SimulateFlags): NonNullable<SimulatorOptions['recordings']> {
  const recordings: NonNullable<SimulatorOptions['recordings']> = {};
  if (flags.recordingBytes !== undefined) recordings.size = flags.recordingBytes;
  if (flags.recordingLinkTtlMs !== undefined) recordings.linkTtlMs = flags.recordingLinkTtlMs;
  if (flags.providerRedirect === true) recordings.providerRedirect = true;
  const limit = flags.recordingsRateLimit;
  if (limit !== undefined) recordings.rateLimit = limit === 'api' ? 'api' : { limit, windowMs: flags.recordingsRateWindowMs ?? 60_000 };
  return recordings;
}

function hostileOptions(flags: SimulateFlags): NonNullable<SimulatorOptions['hostile']> {
  const hostile: NonNullable<SimulatorOptions['hostile']> = {};
  if (flags.retryAfter429 !== undefined) hostile.retryAfter429 = flags.retryAfter429;
  if (flags.exhaustedUntil !== undefined) hostile.exhaustedUntilSec = flags.exhaustedUntil;
  if (flags.hugeBodyBytes !== undefined) hostile.hugeBodyBytes = flags.hugeBodyBytes;
  if (flags.trickleMs !== undefined) hostile.trickleMs = flags.trickleMs;
  if (flags.echoCredentialsAt !== undefined) {
    hostile.echoCredentials = { status: 500, at: flags.echoCredentialsAt, length: flags.echoCredentialsAt + 2000 };
  }
  if (flags.unavailableRequests !== undefined) {
    hostile.unavailable = { requests: flags.unavailableRequests, retryAfter: flags.unavailableRetryAfter ?? '30' };
  }
  if (flags.listShare !== undefined) hostile.listShare = flags.listShare;
  return hostile;
}

/** Maps flags to simulator options; unset optional flags keep the simulator's defaults. */
export function toSimulatorOptions(flags: SimulateFlags): SimulatorOptions {
  const faults: SimulatorOptions['faults'] = {};
  if (flags.errorRate !== undefined) faults.errorRate = flags.errorRate;
  if (flags.slowRate !== undefined) faults.slowRate = flags.slowRate;
  if (flags.slowMs !== undefined) faults.slowMs = flags.slowMs;
  if (flags.truncateRate !== undefined) faults.truncateRate = flags.truncateRate;
  if (flags.badJsonRate !== undefined) faults.badJsonRate = flags.badJsonRate;
  if (flags.resetRate !== undefined) faults.resetRate = flags.resetRate;
  const options: SimulatorOptions = {
    host: flags.host,
    port: flags.port,
    seed: flags.seed,
    businesses: flags.businesses,
    calls: flags.calls,
    voicemails: flags.voicemails,
    numbers: flags.numbers,
    rateLimit: flags.rateLimit === false ? false : { limit: flags.rateLimit, windowMs: flags.rateWindowMs },
    faults,
  };
  if (flags.cursorTtlMs !== undefined) options.cursorTtlMs = flags.cursorTtlMs;
  if (flags.cursors !== undefined) options.cursors = flags.cursors;
  if (flags.v1Order !== undefined) options.v1Order = flags.v1Order;
  if (flags.outboundToNumber !== undefined) options.outboundToNumber = flags.outboundToNumber;
  if (flags.v2LimitCap !== undefined) options.v2LimitCap = flags.v2LimitCap;
  if (flags.v2FractionalUuid === true) options.v2FractionalUuid = true;
  if (flags.v1LimitCap !== undefined) options.v1LimitCap = flags.v1LimitCap;
  const broken: SimulatorOptions['brokenPaging'] = {};
  for (const key of BROKEN_PAGING_FLAGS) if (flags[key] === true) broken[key] = true;
  if (Object.keys(broken).length > 0) options.brokenPaging = broken;
  const hostile = hostileOptions(flags);
  if (Object.keys(hostile).length > 0) options.hostile = hostile;
  if (flags.deepRecord !== undefined || flags.loneSurrogateRecord === true || flags.oversizedRecordBytes !== undefined) {
    options.hostileRecords = {
      deepNesting: flags.deepRecord ?? 0,
      loneSurrogate: flags.loneSurrogateRecord === true,
      oversizedFieldBytes: flags.oversizedRecordBytes ?? 0,
    };
  }
  if (flags.webhooks !== undefined) {
    if (flags.webhookSecret === undefined) throw new InvalidArgumentError('--webhooks needs --webhook-secret (the secret callsync checks the signatures with)');
    options.webhooks = {
      url: flags.webhooks,
      secret: flags.webhookSecret,
      delayMs: { min: 0, max: flags.webhookMaxDelayMs ?? 0 },
      dropRate: flags.webhookDropRate ?? 0,
      duplicateRate: flags.webhookDuplicateRate ?? 0,
      reorderRate: flags.webhookReorderRate ?? 0,
    };
  }
  const recordings = recordingsOptions(flags);
  if (Object.keys(recordings).length > 0) options.recordings = recordings;
  // Beside a fixed API port, a fixed second port: provider links then stay the same from run to run.
  const recordingsPort = flags.recordingsPort ?? (flags.port === 0 ? undefined : flags.port + 1);
  if (recordingsPort !== undefined) options.recordingsPort = recordingsPort;
  if (flags.recordingsOnOwnPort === true) options.recordingsOnOwnPort = true;
  if (flags.recordingsBaseUrl !== undefined) options.recordingsBaseUrl = flags.recordingsBaseUrl;
  if (flags.providerBaseUrl !== undefined) options.providerBaseUrl = flags.providerBaseUrl;
  if (flags.callsPerSecond !== undefined || flags.voicemailsPerSecond !== undefined) {
    options.arrival = { callsPerSecond: flags.callsPerSecond ?? 0, voicemailsPerSecond: flags.voicemailsPerSecond ?? 0 };
  }
  return options;
}

/** The other readings and hostile switches in effect, one `name=value` each, for the startup summary. */
export function describeSwitches(options: SimulatorOptions): string[] {
  const out: string[] = [];
  const add = (prefix: string, values: object | undefined): void => {
    for (const [key, value] of Object.entries(values ?? {})) {
      if (value === undefined || value === null || value === false || value === 0 || value === '') continue;
      out.push(`${prefix}${key}=${typeof value === 'object' ? JSON.stringify(value) : String(value)}`);
    }
  };
  const { v1Order, cursors, v1LimitCap, v2LimitCap, v2FractionalUuid, outboundToNumber } = options;
  add('', {
    v1Order: v1Order === 'oldest' ? undefined : v1Order,
    cursors: cursors === 'fresh' ? undefined : cursors,
    outboundToNumber: outboundToNumber === 'customer' ? undefined : outboundToNumber,
    v1LimitCap,
    v2LimitCap,
    v2FractionalUuid,
  });
  add('brokenPaging.', options.brokenPaging);
  add('hostile.', options.hostile);
  add('hostileRecords.', options.hostileRecords);
  add('recordings.', options.recordings);
  // The secret is never printed.
  const hooks = options.webhooks;
  if (hooks !== undefined)
    add('webhooks.', {
      url: hooks.url,
      maxDelayMs: hooks.delayMs?.max,
      dropRate: hooks.dropRate,
      duplicateRate: hooks.duplicateRate,
      reorderRate: hooks.reorderRate,
    });
  return out;
}
