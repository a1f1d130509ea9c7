import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { headingAnchors, markdownFiles, readRepoFile, relativeLinks, ROOT } from './markdown.js';

/** What is wrong with one link of `page`, or undefined when it leads somewhere. */
function brokenLink(page: string, target: string): string | undefined {
  const [path = '', anchor] = target.split('#', 2);
  const file = path === '' ? page : normalize(join(dirname(page), decodeURIComponent(path)));
  if (file.startsWith('..')) return `${target}: leaves the repository`;
  if (!existsSync(join(ROOT, file))) return `${target}: no file ${file}`;
  if (anchor === undefined || anchor === '' || !file.endsWith('.md') || statSync(join(ROOT, file)).isDirectory()) return undefined;
  return headingAnchors(readRepoFile(file)).has(anchor) ? undefined : `${target}: ${file} has no heading #${anchor}`;
}

describe('links between the Markdown pages', () => {
  it('finds a file and a heading a link names, and nothing else', () => {
    expect(brokenLink('docs/operations.md', 'configuration.md#hooks-webhooks-received-by-run')).toBeUndefined();
    expect(brokenLink('docs/operations.md', 'configuration.md#no-such-heading')).toMatch(/has no heading/);
    expect(brokenLink('docs/operations.md', 'no-such-page.md')).toMatch(/no file docs\/no-such-page\.md/);
  });

  it.each(markdownFiles())('%s: every relative link resolves', (page) => {
    const broken = relativeLinks(readRepoFile(page)).flatMap((target) => brokenLink(page, target) ?? []);
    expect(broken).toEqual([]);
  });
});
