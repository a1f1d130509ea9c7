import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/engine/metrics/index.js';
import { startStatusServer, type StatusServer } from '../../src/entry/server/index.js';
import { createRedisStatusStore } from '../../src/engine/state/index.js';
import { redisUrl, uniqueName } from '../integration/services.js';
import { deleteKeys } from '../integration/worker/harness.js';
import { launchChromium, OUTPUT } from './chromium.js';
import { fleetStreams, seedFleet, type SeededStream } from '../integration/support/status-fleet.js';

const BUSINESSES = 10_000;
const LATE = 300;
const PROBLEM_STATES = new Set(['failed', 'auth_failed', 'drift', 'gap_warning']);

/** What the page must say, worked out from the seeded fleet alone (not by the code under test). */
function expectations(streams: readonly SeededStream[]) {
  const waitingLong = (s: SeededStream) => !PROBLEM_STATES.has(s.state) && s.lagSeconds !== null && s.lagSeconds >= LATE;
  const problems = streams
    .filter((s) => PROBLEM_STATES.has(s.state) || waitingLong(s))
    .sort(
      (a, b) =>
        (b.lagSeconds ?? Infinity) - (a.lagSeconds ?? Infinity) || (a.business < b.business ? -1 : a.business > b.business ? 1 : a.stream < b.stream ? -1 : 1),
    );
  const count = (state: string) => streams.filter((s) => s.state === state).length;
  return {
    problems: problems.map((s) => `${s.business}/${s.stream}`),
    tiles: {
      needs_person: problems.length,
      auth_failed: count('auth_failed'),
      failed: count('failed'),
      drift: count('drift'),
      gap_warning: count('gap_warning'),
      waiting_long: streams.filter(waitingLong).length,
      waiting_for_budget: count('waiting_for_budget'),
      syncing: count('syncing'),
      idle: count('idle'),
    },
  };
}

async function tiles(page: Page): Promise<Record<string, number>> {
  const links = await page.locator('a.tile').all();
  const entries = await Promise.all(
    links.map(async (link) => [(await link.getAttribute('data-count')) ?? '', Number((await link.locator('strong').innerText()).replaceAll(',', ''))] as const),
  );
  return Object.fromEntries(entries);
}

/** `business/stream` of each listed row, in order. */
async function rows(page: Page): Promise<string[]> {
  const trs = await page.locator('section.streams tbody tr').all();
  return Promise.all(trs.map(async (tr) => `${(await tr.getAttribute('data-business')) ?? ''}/${(await tr.getAttribute('data-stream')) ?? ''}`));
}

describe('the status page of 10,000 businesses in headless Chromium', () => {
  const prefix = uniqueName('e2e10k');
  const redis = new Redis(redisUrl);
  const streams = fleetStreams(BUSINESSES);
  const expected = expectations(streams);
  let server: StatusServer;
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
    const store = createRedisStatusStore({ redis, prefix });
    await seedFleet(store, streams, Date.now());
    server = await startStatusServer({
      port: 0,
      statusStore: store,
      metrics: createMetrics({ processMetrics: false }).registry,
      readiness: {},
      logger: pino({ level: 'silent' }),
      lateAfterSeconds: LATE,
      // The fleet does not change during this file: one read of its 30,000 streams serves every page and
      // request, as it serves a person paging within the window. A loaded machine takes seconds a read, and
      // the default 2 s window made this file read it again for almost every one of its dozen requests.
      snapshotMaxAgeMs: 10 * 60_000,
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await deleteKeys(prefix);
    await redis.quit();
  });

  it('is one screen that says what needs a person: the counts, then the worst streams first, with a filter, paging and each business one click away', async () => {
    expect(expected.tiles.needs_person).toBeGreaterThan(50);
    const html = await (await fetch(server.url)).text();
    // The whole page of 30,000 streams weighs what 50 rows do (the old page drew every row and a chart per business).
    expect(Buffer.byteLength(html)).toBeLessThan(80_000);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(server.url, { waitUntil: 'load' });
    expect(await tiles(page)).toEqual(expected.tiles);
    expect(await rows(page)).toEqual(expected.problems.slice(0, 50));
    const pages = Math.ceil(expected.problems.length / 50);
    expect(await page.locator('p.pager').first().innerText()).toBe(`Streams 1–50 of ${expected.problems.length} (page 1 of ${pages}). next →`);
    // The counts and the worst stream are on the first screen, without scrolling.
    for (const selector of ['nav.tiles', 'section.streams tbody tr']) {
      const box = await page.locator(selector).first().boundingBox();
      expect(box !== null && box.y + box.height <= 900).toBe(true);
    }
    expect(await page.locator('svg').count()).toBe(0);
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, 'status-page-10000.png') });

    // A click starts a navigation and returns: read the rows once the next page has loaded.
    await page.locator('a[rel="next"]').first().click();
    await page.waitForURL((url) => url.searchParams.get('page') === '2', { waitUntil: 'load' });
    expect(await rows(page)).toEqual(expected.problems.slice(50, 100));

    // The filter is a plain GET form: it works with JavaScript off.
    const failed = streams.find((s) => s.state === 'failed');
    if (failed === undefined) throw new Error('the fleet has no failed stream');
    await page.goto(server.url, { waitUntil: 'load' });
    await page.getByLabel('Business').fill(failed.business.slice(-4));
    await page.getByLabel('Streams').selectOption('failed');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL((url) => url.searchParams.get('state') === 'failed', { waitUntil: 'load' });
    const filtered = await rows(page);
    expect(filtered).toContain(`${failed.business}/${failed.stream}`);
    expect(filtered.every((row) => row.split('/')[0]?.includes(failed.business.slice(-4)))).toBe(true);
    expect(new URL(page.url()).searchParams.get('state')).toBe('failed');

    await page.locator(`section.streams a[href="business/${failed.business}"]`).first().click();
    await page.waitForURL((url) => url.pathname === `/business/${failed.business}`, { waitUntil: 'load' });
    expect(new URL(page.url()).pathname).toBe(`/business/${failed.business}`);
    expect(await page.locator('svg.chart').count()).toBe(1);
    expect(await page.locator('tr[data-business] td[data-state="failed"]').count()).toBeGreaterThanOrEqual(1);
    await page.screenshot({ path: join(OUTPUT, 'status-page-10000-business.png'), fullPage: true });
    await context.close();
  });

  it('pages /status over every business exactly once and counts the whole fleet in its summary', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response = await fetch(`${server.url}/status?limit=1000${cursor === null ? '' : `&cursor=${cursor}`}`);
      const body = (await response.json()) as {
        summary: { streams: number; needsPerson: number };
        businesses: Array<{ name: string }>;
        nextCursor: string | null;
      };
      expect(body.summary).toMatchObject({ streams: BUSINESSES * 3, needsPerson: expected.tiles.needs_person });
      seen.push(...body.businesses.map((b) => b.name));
      cursor = body.nextCursor;
    } while (cursor !== null);
    expect(seen).toHaveLength(BUSINESSES);
    expect(new Set(seen).size).toBe(BUSINESSES);
    const problems = (await (await fetch(`${server.url}/status?state=needs_person`)).json()) as { businesses: Array<{ streams: unknown[] }> };
    expect(problems.businesses.reduce((sum, b) => sum + b.streams.length, 0)).toBe(expected.tiles.needs_person);
  });
});
