import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, which every path below is relative to. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function markdownUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .sort();
}

/** The pages a reader moves between: the front door, the changelog, the contributors' page, docs/ and the connectors' and tests' READMEs. */
export function markdownFiles(): string[] {
  return ['README.md', 'CHANGELOG.md', 'CONTRIBUTING.md', ...markdownUnder('docs'), ...markdownUnder('connectors'), ...markdownUnder('test')];
}

/** The pages under docs/. */
export function docsPages(): string[] {
  return markdownUnder('docs');
}

export function readRepoFile(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8');
}

export interface FencedBlock {
  /** The fence's info string, e.g. `yaml` or `yaml fragment`. */
  readonly info: string;
  readonly text: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
}

/** Every fenced code block (``` fences) of a Markdown text, in order. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*```(.*)$/.exec(lines[i] ?? '');
    if (open === null) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i] ?? ''); i++) body.push(lines[i] ?? '');
    blocks.push({ info: (open[1] ?? '').trim(), text: body.join('\n'), line: start + 1 });
  }
  return blocks;
}

/** The text outside fenced blocks and inline code spans, where links and headings live. */
export function prose(markdown: string): string {
  const lines = markdown.split('\n');
  let inFence = false;
  return lines
    .map((line) => {
      if (/^\s*```/.test(line)) {
        inFence = !inFence;
        return '';
      }
      return inFence ? '' : line.replace(/``[^`]*``|`[^`]*`/g, '');
    })
    .join('\n');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen; repeats get -1, -2 … */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) inFence = !inFence;
    const heading = inFence ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading === null) continue;
    const slug = (heading[1] ?? '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The targets of inline links (`[text](target)`) in a page's prose, web addresses left out. */
export function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}
