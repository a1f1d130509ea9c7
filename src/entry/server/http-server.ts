import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createHostCheck } from './allowed-hosts.js';
import { boundConnections, CONNECTIONS_CHECKING_INTERVAL_MS, STATUS_CONNECTION_LIMITS, type ConnectionLimits } from './connection-limits.js';
import { createBearerCheck } from './bearer-auth.js';
import { PAGE_CSP, send, sendJson } from './http-response.js';
import { DEFAULT_READINESS_TIMEOUT_MS, runReadinessChecks, type ReadinessCheck } from './readiness.js';
import { redactDeep, redactUrlCredentials, type Redact } from '../../base/redact/index.js';
import { escapeHtml } from './html.js';
import { listen, type Listening } from './listen.js';
import { businessPage, statusJson, statusPage, type Answer, type StatusRouteContext } from './status-routes.js';
import { MIN_LATE_AFTER_SECONDS } from './status-summary.js';
import { sharedSnapshotReader } from './snapshot-cache.js';
import type { StatusStore } from '../../engine/state/index.js';

export interface StatusServerOptions {
  /** Interface to listen on; loopback so nothing is exposed by accident. @defaultValue '127.0.0.1' */
  readonly host?: string;
  /** Port to listen on; 0 picks a free one (see the returned `url`). */
  readonly port: number;
  /** When set, every route but `/healthz` needs `Authorization: Bearer <token>`. */
  readonly token?: string;
  /**
   * Host names the server answers for besides IP literals and `localhost` (`server.allowedHosts`);
   * any other `Host` gets 421 on every route but `extraRoutes`. @defaultValue []
   */
  readonly allowedHosts?: readonly string[];
  readonly statusStore: StatusStore;
  /** Served at `/metrics`; see `createMetrics`. */
  readonly metrics: Registry;
  /** Named dependency checks for `/readyz`, e.g. `{ redis, sink }`. */
  readonly readiness: Readonly<Record<string, ReadinessCheck>>;
  readonly logger: Logger;
  /** Longest a readiness check may take. @defaultValue 2000 */
  readonly readinessTimeoutMs?: number;
  /** Seconds between status page reloads. @defaultValue 5 */
  readonly refreshSeconds?: number;
  /**
   * The lag from which a stream whose state looks fine counts as waiting long and needs a person
   * (`lateAfterSeconds(schedule.every)` in `run`). @defaultValue 300
   */
  readonly lateAfterSeconds?: number;
  /**
   * Requests within this many milliseconds of a read of every stream's status share it (the
   * page, `/status` pages, business pages); 0 reads for every request. @defaultValue 2000
   */
  readonly snapshotMaxAgeMs?: number;
  /**
   * Scrubs secrets from every string served (e.g. the logger's `scrubSecrets` bound to the
   * config's secrets). URL credentials (`scheme://user:pass@`) are always scrubbed.
   */
  readonly redact?: Redact;
  /** Clock for `generatedAt` and lag. @defaultValue Date.now */
  readonly now?: () => number;
  /**
   * Routes answered before the bearer token is asked for, because they authenticate each
   * request themselves (the webhook receiver, when `hooks.port` is not set).
   */
  readonly extraRoutes?: ExtraRoutes;
  /** Each business's last webhook delivery, shown on its page (`run` with `hooks`). */
  readonly webhookDeliveries?: StatusRouteContext['webhookDeliveries'];
}

/** Paths the server hands over whole (method, auth and answer are theirs). */
export interface ExtraRoutes {
  owns(path: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void>;
  /**
   * The port's limits while it serves these routes (they face the internet, the status routes do
   * not). @defaultValue STATUS_CONNECTION_LIMITS
   */
  readonly connectionLimits?: ConnectionLimits;
}

export type StatusServer = Listening;

/** The path without the query string; the query is never logged, in case someone put a token there. */
function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?', 1)[0] ?? '/';
}

function queryOf(req: IncomingMessage): URLSearchParams {
  const url = req.url ?? '/';
  const at = url.indexOf('?');
  return new URLSearchParams(at === -1 ? '' : url.slice(at + 1));
}

type Route = { readonly path: '/' | '/healthz' | '/readyz' | '/metrics' | '/status' } | { readonly path: '/business/'; readonly name: string };
const PATHS: ReadonlySet<string> = new Set(['/', '/healthz', '/readyz', '/metrics', '/status']);
const BUSINESS = '/business/';
/** What a 404 lists. */
const ROUTES = [...PATHS, `${BUSINESS}NAME`];

function routeOf(path: string): Route | undefined {
  if (PATHS.has(path)) return { path } as Route;
  if (!path.startsWith(BUSINESS) || path.length === BUSINESS.length) return undefined;
  try {
    return { path: BUSINESS, name: decodeURIComponent(path.slice(BUSINESS.length)) };
  } catch {
    return undefined;
  }
}

/**
 * The operators' HTTP port of `callsync run`: liveness, readiness, Prometheus metrics, the
 * status JSON and the status page. node:http only; every answer is complete (no streaming).
 */
export async function startStatusServer(options: StatusServerOptions): Promise<StatusServer> {
  const host = options.host ?? '127.0.0.1';
  const now = options.now ?? Date.now;
  const extra = options.redact;
  const redact: Redact = (text) => redactUrlCredentials(extra === undefined ? text : extra(text));
  const authorized = options.token === undefined ? () => true : createBearerCheck(options.token);
  const knownHost = createHostCheck(options.allowedHosts ?? []);
  const { logger } = options;

  const context: StatusRouteContext = {
    store: options.statusStore,
    snapshot: sharedSnapshotReader(options.statusStore, now, options.snapshotMaxAgeMs ?? 2_000),
    now,
    redact,
    lateAfterSeconds: options.lateAfterSeconds ?? MIN_LATE_AFTER_SECONDS,
    refreshSeconds: options.refreshSeconds,
    webhookDeliveries: options.webhookDeliveries,
  };

  function answer(res: ServerResponse, reply: Answer): void {
    if (reply.type === 'json') return sendJson(res, reply.status, reply.body);
    send(res, reply.status, 'text/html; charset=utf-8', reply.body, { 'content-security-policy': PAGE_CSP });
  }

  async function route(target: Route, req: IncomingMessage, res: ServerResponse): Promise<void> {
    switch (target.path) {
      case '/healthz':
        return send(res, 200, 'text/plain; charset=utf-8', 'ok\n');
      case '/readyz': {
        const report = await runReadinessChecks(options.readiness, options.readinessTimeoutMs ?? DEFAULT_READINESS_TIMEOUT_MS);
        if (!report.ready) logger.warn({ failing: report.failing }, 'readiness check failed');
        return sendJson(res, report.ready ? 200 : 503, redactDeep(report, redact));
      }
      case '/metrics':
        return send(res, 200, options.metrics.contentType, redact(await options.metrics.metrics()));
      case '/status':
        return answer(res, await statusJson(context, queryOf(req)));
      case '/':
        return answer(res, await statusPage(context, queryOf(req)));
      case BUSINESS:
        return answer(res, await businessPage(context, target.name));
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = pathOf(req);
    // The receiver's senders use a public name and sign every delivery: no Host rule of ours applies.
    if (options.extraRoutes?.owns(path) === true) return options.extraRoutes.handle(req, res, path);
    // Before the token and on /healthz too: probes ask by IP or localhost, and a refusal tells a rebinding page nothing.
    if (!knownHost(req.headers.host)) {
      return sendJson(res, 421, { error: 'misdirected request: this server does not answer for that Host header', fix: 'add the name to server.allowedHosts' });
    }
    if (path !== '/healthz' && !authorized(req.headers.authorization)) {
      return sendJson(res, 401, { error: 'unauthorized: send Authorization: Bearer <token>' }, { 'www-authenticate': 'Bearer' });
    }
    const target = routeOf(path);
    if (target === undefined) return sendJson(res, 404, { error: 'not found', routes: ROUTES });
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return sendJson(res, 405, { error: 'method not allowed' }, { allow: 'GET, HEAD' });
    }
    try {
      await route(target, req, res);
    } catch (error) {
      const message = redact(error instanceof Error ? error.message : String(error));
      logger.error({ path, err: message }, 'status server request failed');
      if (res.headersSent) return void res.destroy();
      if (target.path === '/' || target.path === BUSINESS) {
        const page = `<!doctype html><title>callsync status</title><p>Status unavailable: ${escapeHtml(message)}</p>`;
        send(res, 503, 'text/html; charset=utf-8', page, { 'content-security-policy': PAGE_CSP });
      } else sendJson(res, 503, { error: `unavailable: ${message}` });
    }
  }

  const server = createServer({ connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS }, (req, res) => {
    res.on('finish', () => logger.debug({ method: req.method, path: pathOf(req), status: res.statusCode }, 'status server request'));
    handle(req, res).catch((error: unknown) => {
      logger.error({ err: redact(error instanceof Error ? error.message : String(error)) }, 'status server could not answer');
      res.destroy();
    });
  });
  boundConnections(server, options.extraRoutes?.connectionLimits ?? STATUS_CONNECTION_LIMITS);
  const listening = await listen(server, host, options.port);
  logger.info({ url: listening.url, auth: options.token !== undefined }, 'status server listening');
  return listening;
}
