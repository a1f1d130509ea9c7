import type { IncomingMessage, ServerResponse } from 'node:http';
import { admit } from './admit.js';
import { recordingChunks } from './recording-bytes.js';
import type { RecordingTarget } from './recording-directory.js';
import { MEDIA_PREFIX } from './recording-directory.js';
import type { ByteRange } from './recording-range.js';
import { parseRange } from './recording-range.js';
import { streamBody } from './recording-stream.js';
import type { SimState } from './state.js';
import type { RecordingFault } from './recording-types.js';

/** Which name of a recording link was asked for: the media path or the provider's. */
export type RecordingRole = 'media' | 'provider';

/** What a proxy in front of the host answers with a 200 when the host is down: HTML, not audio. */
const HTML_ERROR_PAGE =
  '<!DOCTYPE html><html><head><title>Service Unavailable</title></head><body><h1>Recordings are unavailable</h1>' +
  '<p>Our media service is down for maintenance. Please try again later.</p></body></html>';

function xmlEscape(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** An error as a signed-link host (S3, CloudFront) writes it: `<Error><Code>…</Code><Message>…</Message>…</Error>`. */
function s3Error(code: string, message: string, extra: Record<string, string> = {}): string {
  const fields = Object.entries({ Code: code, Message: message, ...extra, RequestId: 'SIMULATED' })
    .map(([name, value]) => `<${name}>${xmlEscape(value)}</${name}>`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error>${fields}</Error>`;
}

const ERROR_CODES: Record<number, [string, string]> = {
  403: ['AccessDenied', 'Request has expired'],
  404: ['NoSuchKey', 'The specified key does not exist.'],
  405: ['MethodNotAllowed', 'The specified method is not allowed against this resource.'],
  416: ['InvalidRange', 'The requested range is not satisfiable'],
  429: ['SlowDown', 'Please reduce your request rate.'],
  500: ['InternalError', 'We encountered an internal error. Please try again.'],
  503: ['ServiceUnavailable', 'Please reduce your request rate.'],
};

function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Answers with a short body, counted. */
function sendText(state: SimState, req: IncomingMessage, res: ServerResponse, status: number, body: string, headers: Record<string, string>): void {
  const bytes = Buffer.from(body, 'utf8');
  res.writeHead(status, { ...headers, 'content-length': String(bytes.length) });
  state.counters.recordingStatus(status);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  state.counters.recording('bytesServed', bytes.length);
  res.end(bytes);
}

function sendError(
  state: SimState,
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  extra: Record<string, string> = {},
  headers: Record<string, string> = {},
): void {
  const [code, message] = ERROR_CODES[status] ?? ['InternalError', 'We encountered an internal error. Please try again.'];
  sendText(state, req, res, status, s3Error(code, message, extra), { ...headers, 'content-type': 'application/xml' });
}

function redirect(state: SimState, res: ServerResponse, location: string): void {
  res.writeHead(302, { location, 'content-length': '0' });
  state.counters.recordingStatus(302);
  res.end();
}

/** The same recording under another host: the media host, the second port, or the second port under its foreign name. */
function elsewhere(state: SimState, target: RecordingTarget, to: 'media' | 'own-port' | 'foreign'): string {
  const urls = state.recordings.urls;
  if (to === 'media') return `${urls.media}${target.recordingPath}`;
  return `${to === 'foreign' ? urls.foreign : urls.provider}${MEDIA_PREFIX}${target.recordingPath}`;
}

interface AudioOptions {
  size: number;
  bytesPerSecond: number;
  closeAfterBytes: number | undefined;
  /** No `Content-Length`, and a body that never ends. */
  endless: boolean;
}

/** The audio: whole (200), a range (206) or a refused range (416), generated as it streams. */
async function sendAudio(state: SimState, req: IncomingMessage, res: ServerResponse, target: RecordingTarget, options: AudioOptions): Promise<void> {
  const { size } = options;
  const etag = `"${target.recordingId}-${size}"`;
  const lastModified = new Date(target.createdAtSec * 1000).toUTCString();
  const headers: Record<string, string> = { 'content-type': 'audio/wav', 'accept-ranges': 'bytes', etag, 'last-modified': lastModified };
  const ifRange = req.headers['if-range'];
  const honoured = ifRange === undefined || ifRange === etag || ifRange === lastModified;
  const asked = options.endless || !honoured ? undefined : parseRange(req.headers.range, size);
  if (asked === 'unsatisfiable') {
    sendError(state, req, res, 416, {}, { 'content-range': `bytes */${size}` });
    return;
  }
  const range: ByteRange = asked ?? { start: 0, end: options.endless ? Number.POSITIVE_INFINITY : size };
  const status = asked === undefined ? 200 : 206;
  const length = options.endless ? {} : { 'content-length': String(range.end - range.start) };
  const partial = status === 206 ? { 'content-range': `bytes ${range.start}-${range.end - 1}/${size}` } : {};
  res.writeHead(status, { ...headers, ...length, ...partial });
  state.counters.recordingStatus(status);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const plan = {
    chunks: recordingChunks(target.recordingId, size, range.start, range.end),
    bytesPerSecond: options.bytesPerSecond,
    closeAfterBytes: options.closeAfterBytes,
  };
  await streamBody(res, plan, (n) => state.counters.recording('bytesServed', n));
}

async function sendFault(state: SimState, req: IncomingMessage, res: ServerResponse, target: RecordingTarget, fault: RecordingFault): Promise<void> {
  state.counters.recording('faults');
  const normal = { size: state.recordings.size(target.recordingId), bytesPerSecond: 0, closeAfterBytes: undefined, endless: false };
  switch (fault.kind) {
    case 'status':
      sendError(state, req, res, fault.status, {}, { 'retry-after': fault.retryAfter ?? '1' });
      return;
    case 'slow':
      await sendAudio(state, req, res, target, { ...normal, bytesPerSecond: fault.bytesPerSecond });
      return;
    case 'reset':
      await sendAudio(state, req, res, target, { ...normal, closeAfterBytes: fault.afterBytes });
      return;
    case 'oversized':
      await sendAudio(state, req, res, target, { ...normal, size: fault.declaredBytes });
      return;
    case 'endless':
      await sendAudio(state, req, res, target, { ...normal, endless: true });
      return;
    case 'html':
      sendText(state, req, res, 200, HTML_ERROR_PAGE, { 'content-type': 'text/html; charset=utf-8' });
      return;
    case 'redirect':
      redirect(state, res, elsewhere(state, target, fault.to));
      return;
  }
}

/** The rate-limit answer, or undefined when the request is within the recordings budget. */
function overBudget(state: SimState, target: RecordingTarget, nowMs: number): string | undefined {
  const limit = state.recordings.settings.rateLimit;
  if (limit === false) return undefined;
  const name = target.business.name;
  if (limit === 'api') return admit(state, name, nowMs, false).refused?.headers?.['retry-after'];
  const taken = state.recordings.limiter.take(name, nowMs, false);
  return taken.admitted ? undefined : String(taken.retryAfterSec);
}

function hostName(req: IncomingMessage): string {
  const host = req.headers.host ?? '';
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':', 1)[0] ?? '');
}

/**
 * One request for a recording link (`path` below its prefix): found, within budget, not deleted,
 * not expired, then the first matching fault, else the audio. Every request counts as an attempt of
 * its recording, whatever it is answered.
 */
export async function handleRecording(state: SimState, req: IncomingMessage, res: ServerResponse, role: RecordingRole, path: string): Promise<void> {
  const host = state.recordings;
  state.counters.recording('requests');
  if (req.headers.authorization !== undefined) state.counters.recording('withCredentials');
  if (hostName(req) === host.urls.foreignHostName) state.counters.recording('foreignRequests');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendError(state, req, res, 405, {}, { allow: 'GET, HEAD' });
    return;
  }
  const target = role === 'media' ? host.directory.fromMediaPath(path) : host.directory.fromProviderPath(path);
  if (target === undefined) {
    sendError(state, req, res, 404, { Key: path.slice(1) });
    return;
  }
  const attempt = host.attempt(target.recordingId);
  const nowMs = state.clock();
  const wait = overBudget(state, target, nowMs);
  if (wait !== undefined) {
    sendError(state, req, res, 429, {}, { 'retry-after': wait });
    return;
  }
  const status = host.status(target, nowMs);
  if (status === 404) {
    sendError(state, req, res, 404, { Key: path.slice(1) });
    return;
  }
  if (status === 403) {
    state.counters.recording('expired');
    sendError(state, req, res, 403, { Expires: isoSeconds(host.expiresAtMs(target) ?? nowMs), ServerTime: isoSeconds(nowMs) });
    return;
  }
  if (role === 'provider' && host.settings.providerRedirect) {
    redirect(state, res, elsewhere(state, target, 'media'));
    return;
  }
  const fault = host.fault(target, attempt);
  if (fault !== undefined) {
    await sendFault(state, req, res, target, fault);
    return;
  }
  await sendAudio(state, req, res, target, { size: host.size(target.recordingId), bytesPerSecond: 0, closeAfterBytes: undefined, endless: false });
}
