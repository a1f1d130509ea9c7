import { readActivity, type StatusStore } from '../../engine/state/index.js';
import { redactDeep, type Redact } from '../../base/redact/index.js';
import { renderBusinessPage } from './business-page.js';
import { escapeHtml } from './html.js';
import { renderStatusPage } from './status-page.js';
import { parseSummaryQuery, summaryView } from './status-page-view.js';
import { parseStatusQuery, statusDocument } from './status-json.js';
import type { SnapshotReader } from './snapshot-cache.js';

/** What the status routes read and how they present it. */
export interface StatusRouteContext {
  /** Read for the activity of the businesses shown. */
  readonly store: StatusStore;
  /** Every stream's status, without activity (shared between requests close together). */
  readonly snapshot: SnapshotReader;
  readonly now: () => number;
  readonly redact: Redact;
  /** The lag from which a stream counts as waiting long. */
  readonly lateAfterSeconds: number;
  readonly refreshSeconds?: number;
  /** Each business's last webhook delivery, when `run` receives webhooks. */
  readonly webhookDeliveries?: () => Promise<ReadonlyMap<string, { readonly atMs: number; readonly outcome: string }>>;
}

/** A complete answer; the server sends it. */
export type Answer =
  { readonly status: number; readonly type: 'json'; readonly body: unknown } | { readonly status: number; readonly type: 'html'; readonly body: string };

function messagePage(title: string, message: string, base: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><p>${escapeHtml(message)}</p><p><a href="${base}">The summary</a></p></body></html>`;
}

/**
 * `GET /status`: the summary, then one page of businesses the query keeps. Every stream is read
 * (the summary counts them); activity only for the page's businesses.
 */
export async function statusJson(context: StatusRouteContext, params: URLSearchParams): Promise<Answer> {
  const query = parseStatusQuery(params);
  if ('error' in query) return { status: 400, type: 'json', body: { error: query.error } };
  const nowMs = context.now();
  const snapshot = await context.snapshot();
  const document = statusDocument(snapshot, query, context.lateAfterSeconds);
  const activity = await readActivity(
    context.store,
    document.businesses.map((business) => business.name),
    nowMs,
  );
  const deliveries = context.webhookDeliveries === undefined ? undefined : await context.webhookDeliveries();
  const businesses = document.businesses.map((business) => {
    const last = deliveries?.get(business.name);
    // Only with webhooks on: `lastWebhook` null says none has arrived yet.
    const webhook =
      deliveries === undefined ? {} : { lastWebhook: last === undefined ? null : { at: new Date(last.atMs).toISOString(), outcome: last.outcome } };
    return { ...business, activity: activity.get(business.name) ?? [], ...webhook };
  });
  return { status: 200, type: 'json', body: redactDeep({ ...document, businesses }, context.redact) };
}

/** `GET /`: the summary page. */
export async function statusPage(context: StatusRouteContext, params: URLSearchParams): Promise<Answer> {
  const query = parseSummaryQuery(params);
  if ('error' in query) return { status: 400, type: 'html', body: messagePage('callsync status', `Bad query: ${query.error}`, './') };
  const snapshot = await context.snapshot();
  const view = summaryView(snapshot, query, context.lateAfterSeconds);
  // Only what is shown is scrubbed (the query's set of states would not survive redactDeep).
  const { redact } = context;
  const shown = { ...view, rows: redactDeep(view.rows, redact), stopped: redactDeep(view.stopped, redact), businesses: redactDeep(view.businesses, redact) };
  return { status: 200, type: 'html', body: renderStatusPage(shown, { refreshSeconds: context.refreshSeconds }) };
}

/** `GET /business/NAME`: one business's own page, with its chart. */
export async function businessPage(context: StatusRouteContext, name: string): Promise<Answer> {
  const nowMs = context.now();
  const snapshot = await context.snapshot();
  const found = snapshot.businesses.find((business) => business.name === name);
  if (found === undefined) {
    return { status: 404, type: 'html', body: messagePage('callsync status', `No business named ${context.redact(name)} has reported.`, '../') };
  }
  const activity = (await readActivity(context.store, [name], nowMs)).get(name) ?? [];
  const business = redactDeep({ ...found, activity }, context.redact);
  const delivery = context.webhookDeliveries === undefined ? undefined : ((await context.webhookDeliveries()).get(name) ?? null);
  const lastWebhook = delivery === undefined || delivery === null ? delivery : { at: new Date(delivery.atMs).toISOString(), outcome: delivery.outcome };
  return {
    status: 200,
    type: 'html',
    body: renderBusinessPage(business, snapshot.generatedAt, {
      refreshSeconds: context.refreshSeconds,
      lateAfterSeconds: context.lateAfterSeconds,
      lastWebhook,
    }),
  };
}
