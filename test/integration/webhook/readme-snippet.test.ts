import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

const folder = new URL('../../../connectors/webhook/', import.meta.url);

describe('connectors/webhook/README.md', () => {
  it('shows receivers exactly the verification function the tests exercise', async () => {
    const source = await readFile(new URL('verify-webhook-signature.ts', folder), 'utf8');
    const readme = await readFile(new URL('README.md', folder), 'utf8');
    const snippet = /\/\/ readme-snippet:start\n([\s\S]+?)\n\/\/ readme-snippet:end/.exec(source)?.[1];
    expect(snippet).toContain('export function verifyWebhookSignature');
    expect(readme).toContain(`import { createHmac, timingSafeEqual } from 'node:crypto';\n\n${snippet}\n\`\`\``);
  });
});
