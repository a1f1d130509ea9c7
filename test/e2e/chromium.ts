import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = process.env.CALLSYNC_CHROMIUM ?? '/usr/bin/chromium';

/** Where the browser tests leave their screenshots. */
export const OUTPUT = join(import.meta.dirname, '..', '..', 'test-output');

/** Headless Debian Chromium, or a clear error naming how to get it. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's package (apt-get install -y chromium) or set CALLSYNC_CHROMIUM`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
