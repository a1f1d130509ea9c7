import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/index.js';
import { runConfig, spawnRun, stopAll, waitFor, workspace, type RunProcess } from '../integration/worker/harness.js';
import { launchChromium, OUTPUT } from './chromium.js';

interface StatusDocument {
  businesses: Array<{ name: string; streams: Array<{ stream: string; state: string; lastSuccessAt: string | null }> }>;
}

describe('the status page in headless Chromium', () => {
  let simulator: Simulator;
  let browser: Browser;
  let worker: RunProcess;
  let url: string;
  const ws = workspace('e2e');

  beforeAll(async () => {
    browser = await launchChromium();
    simulator = await startSimulator({ businesses: 3, calls: 400, voicemails: 20, numbers: 3, seed: 31, rateLimit: { limit: 120, windowMs: 1000 } });
    simulator.revokeKey('biz-2');
    worker = spawnRun(ws.writeConfig(runConfig(simulator, { prefix: ws.prefix, dbPath: ws.dbPath, every: '1s', pageSize: 100 })));
    url = await worker.url;
    // Every stream of the healthy businesses has finished a run, and the revoked one is stopped.
    await waitFor(
      'every business to settle',
      async () => {
        const status = (await (await fetch(`${url}/status`)).json()) as StatusDocument;
        const settled = (name: string, check: (state: string, success: string | null) => boolean) =>
          status.businesses.find((b) => b.name === name)?.streams.some((s) => check(s.state, s.lastSuccessAt)) === true;
        const healthy = ['biz-1', 'biz-3'].every(
          (name) => (status.businesses.find((b) => b.name === name)?.streams ?? []).filter((s) => s.lastSuccessAt !== null).length === 3,
        );
        return healthy && settled('biz-2', (state) => state === 'auth_failed') ? true : undefined;
      },
      60_000,
      250,
    );
  });

  afterAll(async () => {
    await browser?.close();
    await stopAll(worker === undefined ? [] : [worker]);
    await simulator?.close();
    await ws.cleanup();
  });

  it('opens on the summary with the revoked business as what needs a person; each business page has its streams and chart', async () => {
    // The page must work without JavaScript.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    const state = (business: string, stream: string) => page.locator(`tr[data-business="${business}"][data-stream="${stream}"] td[data-state]`);
    await expect.poll(() => page.locator('tr[data-business="biz-2"]').count()).toBeGreaterThanOrEqual(1);
    expect(await state('biz-2', 'calls').getAttribute('data-state')).toBe('auth_failed');
    expect((await state('biz-2', 'calls').innerText()).toLowerCase()).toContain('auth failed');
    // Healthy streams are counted, not listed.
    expect(await page.locator('tr[data-business="biz-1"], tr[data-business="biz-3"]').count()).toBe(0);
    expect(await page.locator('.stopped li[data-business="biz-2"]').count()).toBe(1);
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, 'status-page.png'), fullPage: true });

    for (const business of ['biz-1', 'biz-3']) {
      await page.goto(`${url}/business/${business}`, { waitUntil: 'load' });
      for (const stream of ['calls', 'voicemails', 'numbers']) {
        expect(['idle', 'syncing']).toContain(await state(business, stream).getAttribute('data-state'));
      }
      expect(await page.locator('svg.chart').count()).toBe(1);
    }
    await page.screenshot({ path: join(OUTPUT, 'status-page-business.png'), fullPage: true });
    // The summary is one link away.
    await page.getByRole('link', { name: /the summary/ }).click();
    // The click returns once the navigation starts; a loaded machine may not have reached the summary yet.
    await page.waitForURL((target) => target.pathname === '/', { waitUntil: 'load' });
    expect(new URL(page.url()).pathname).toBe('/');
    await context.close();
  });
});
