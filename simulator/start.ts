import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiKeyRegistry } from './api-keys.js';
import { startArrivals } from './arrival.js';
import { NO_BROKEN_PAGING } from './broken-paging.js';
import { BusinessData } from './business.js';
import { CounterBook } from './counters.js';
import { FaultInjector } from './faults.js';
import { NO_HOSTILE } from './hostile.js';
import { appendHostile, makeHostile } from './hostile-records.js';
import { mix } from './prng.js';
import { FixedWindowLimiter } from './rate-limiter.js';
import { v2UuidText } from './render.js';
import { Responder } from './responder.js';
import { MEDIA_PREFIX } from './recording-directory.js';
import { RecordingHost } from './recording-host.js';
import { V2_PREFIX, createSimulatorServer } from './server.js';
import { SessionStore } from './sessions.js';
import type { SimState } from './state.js';
import { buildTruth } from './truth.js';
import type { Simulator, SimulatorOptions } from './types.js';
import { WebhookSender } from './webhook-sender.js';

/** Listens on `host:port`; resolves with the port taken. */
async function listen(server: Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** Another name for the same interface, so a link there is another host to a client. */
function foreignName(host: string): string {
  return host === 'localhost' ? '127.0.0.1' : 'localhost';
}

function epochSec(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Starts a simulator on a real port; resolves once it is listening. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const seed = options.seed ?? 1;
  // The servers listen first: the records name their URLs (media, provider) when they are made.
  let state: SimState | undefined = undefined;
  const server = createSimulatorServer(() => state, 'api');
  const recordingsServer = createSimulatorServer(() => state, 'recordings');
  const host = options.host ?? '127.0.0.1';
  const baseUrl = `http://${hostForUrl(host)}:${await listen(server, host, options.port ?? 0)}`;
  const recordingsPort = await listen(recordingsServer, host, options.recordingsPort ?? 0).catch((error: unknown) => {
    server.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE') throw error;
    throw new Error(`simulator: the recordings port ${options.recordingsPort} on ${host} is taken; choose another with recordingsPort (--recordings-port)`, {
      cause: error,
    });
  });
  const recordingsHostUrl = `http://${hostForUrl(host)}:${recordingsPort}`;
  const foreignHostUrl = `http://${foreignName(host)}:${recordingsPort}`;
  const recordingsBaseUrl = options.recordingsBaseUrl ?? `${options.recordingsOnOwnPort === true ? recordingsHostUrl : baseUrl}${MEDIA_PREFIX}`;
  const keys = new ApiKeyRegistry();
  const businesses = Array.from(
    { length: options.businesses ?? 3 },
    (_, index) =>
      new BusinessData(
        {
          seed,
          index,
          calls: options.calls ?? 1000,
          voicemails: options.voicemails ?? 100,
          numbers: options.numbers ?? 5,
          recordingsBaseUrl,
          providerBaseUrl: options.providerBaseUrl ?? recordingsHostUrl,
          v2NumbersAsNumbers: options.v2NumbersAsNumbers ?? 0,
          v2FractionalUuid: options.v2FractionalUuid ?? false,
          outboundToNumber: options.outboundToNumber ?? 'customer',
        },
        keys,
      ),
  );
  if (options.hostileRecords !== undefined) for (const b of businesses) makeHostile(b.calls, options.hostileRecords);
  const counters = new CounterBook(businesses.map((b) => b.name));
  const clock = options.clock ?? ((): number => Date.now());
  const recordings = new RecordingHost(businesses, options.recordings);
  recordings.urls = { media: recordingsBaseUrl, provider: recordingsHostUrl, foreign: foreignHostUrl, foreignHostName: foreignName(host) };
  const ready: SimState = {
    businesses,
    keys,
    sessions: new SessionStore(),
    limiter: new FixedWindowLimiter(options.rateLimit ?? { limit: 60, windowMs: 60_000 }),
    faults: new FaultInjector(seed, options.faults),
    counters,
    responder: new Responder(counters),
    cursorSecret: mix(seed, 0xc0de),
    cursorTtlMs: options.cursorTtlMs,
    stableCursors: options.cursors === 'stable',
    cursorOnLastPage: options.cursorOnLastPage ?? true,
    v1Order: options.v1Order ?? 'oldest',
    v2LimitCap: options.v2LimitCap,
    v1LimitCap: options.v1LimitCap,
    brokenPaging: { ...NO_BROKEN_PAGING, ...options.brokenPaging },
    hostile: { ...NO_HOSTILE, ...options.hostile },
    legacyEnvelope: new Set(options.legacyEnvelope ?? ['/sms']),
    recordings,
    clock,
  };
  state = ready;
  let hooks = options.webhooks === undefined ? undefined : new WebhookSender(options.webhooks, seed);
  const stopArrivals = startArrivals(businesses, options.arrival, clock, (name, calls, voicemails) => {
    hooks?.emit(name, 'call.created', calls);
    hooks?.emit(name, 'voicemail.created', voicemails);
  });
  const find = (name: string): BusinessData => {
    const business = businesses.find((b) => b.name === name);
    if (business === undefined) throw new Error(`simulator: unknown business ${name}`);
    return business;
  };
  const nowSec = (): number => Math.floor(clock() / 1000);
  let closed: Promise<void> | undefined;

  return {
    baseUrl,
    v2BaseUrl: `${baseUrl}${V2_PREFIX}`,
    recordingsBaseUrl,
    recordingsHostUrl,
    foreignHostUrl,
    businesses: businesses.map((b) => ({ ...b.credentials })),
    addCalls: (name, count, at) => {
      const store = find(name).calls;
      store.append(count, nowSec());
      if (at?.createdAt !== undefined) for (let i = store.length - count; i < store.length; i++) store.override(i, { createdAtSec: epochSec(at.createdAt) });
      hooks?.emit(name, 'call.created', count);
    },
    addVoicemails: (name, count, at) => {
      find(name).voicemails.append(count, at?.createdAt === undefined ? nowSec() : epochSec(at.createdAt));
      hooks?.emit(name, 'voicemail.created', count);
    },
    addHostileCalls: (name, records) => appendHostile(find(name).calls, records, nowSec()),
    deleteCalls: (name, ids) => {
      const store = find(name).calls;
      const unknown = ids.filter((id) => !store.has(id));
      if (unknown.length > 0) throw new Error(`simulator: ${name} has no call ${unknown.join(', ')}`);
      for (const id of ids) store.delete(id);
      hooks?.emit(name, 'call.deleted', ids.length);
    },
    deleteVoicemails: (name, uuids) => {
      const business = find(name);
      for (const uuid of uuids) {
        // Matched on the served text, so a fractional uuid names its own record, not its twin.
        if (!business.voicemails.delete((vm) => v2UuidText(vm.uuid, vm.index, business.render) === uuid)) {
          throw new Error(`simulator: ${name} has no voicemail ${uuid}`);
        }
      }
      hooks?.emit(name, 'voicemail.deleted', uuids.length);
    },
    addRawVoicemail: (name, raw) => find(name).voicemails.appendRaw(raw),
    updateCallTranscription: (name, callId, text) => {
      if (!find(name).calls.updateTranscription(callId, text, nowSec())) {
        throw new Error(`simulator: ${name} has no call ${callId}`);
      }
      hooks?.emit(name, 'call.updated');
    },
    setFaults: (faults) => ready.faults.set(faults),
    setBrokenPaging: (broken) => {
      ready.brokenPaging = { ...ready.brokenPaging, ...broken };
    },
    setHostile: (hostile) => {
      ready.hostile = { ...ready.hostile, ...hostile };
    },
    setRateLimit: (limit) => ready.limiter.set(limit),
    setRecordings: (settings) => recordings.set(settings),
    recording: (link) => {
      const target = recordings.directory.fromLink(link);
      return target === undefined ? undefined : recordings.truth(target, clock());
    },
    deleteRecordings: (links) => {
      const targets = links.map((link) => {
        const target = recordings.directory.fromLink(link);
        if (target === undefined) throw new Error(`simulator: no recording ${link}`);
        return target;
      });
      for (const target of targets) recordings.directory.deleteRecording(target.recordingId);
    },
    revokeKey: (name, apiKey) => {
      const business = find(name);
      const key = keys.lookup(apiKey ?? business.credentials.apiKey);
      if (key?.business !== name) throw new Error(`simulator: ${name} has no such API key`);
      keys.revoke(name, key.id, clock());
    },
    counters: () => counters.snapshot(),
    resetCounters: () => {
      counters.reset();
      hooks?.resetCounters();
    },
    setWebhooks: (settings) => {
      if (hooks !== undefined) return hooks.set(settings);
      const { url, secret } = settings;
      if (url === undefined || secret === undefined) throw new Error('simulator: the first setWebhooks needs url and secret');
      hooks = new WebhookSender({ ...settings, url, secret }, seed);
    },
    webhookCounters: () => hooks?.counters() ?? { events: 0, dropped: 0, duplicated: 0, sent: 0, byStatus: {} },
    webhooksSettled: () => hooks?.settled() ?? Promise.resolve(),
    truth: (name) => buildTruth(find(name), ready.v1Order),
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        stopArrivals();
        ready.responder.close();
        void hooks?.close();
        let open = 2;
        const closedOne = (): void => {
          if (--open === 0) resolve();
        };
        server.close(closedOne);
        recordingsServer.close(closedOne);
        server.closeAllConnections();
        recordingsServer.closeAllConnections();
      });
      return closed;
    },
  };
}
