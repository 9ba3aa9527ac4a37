// Every relative link in the README, docs/ and bench/README.md points to a file of the repository
// (the package ships docs/: a dead link is a page a user cannot open), and every #anchor to a heading
// of that file.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const pages = [
  'README.md',
  'bench/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
const anchorsOf = (file: string): Set<string> =>
  new Set(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => /^#{1,6} /.test(l))
      .map((l) => anchorOf(l.replace(/^#+ /, ''))),
  );

describe('links in the docs', () => {
  for (const page of pages) {
    it(`${page}: every relative link and anchor resolves`, () => {
      const text = readFileSync(join(ROOT, page), 'utf8').replace(/```[\s\S]*?```/g, ''); // not in code blocks
      const dead: string[] = [];
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path === '' ? join(ROOT, page) : join(ROOT, dirname(page), path);
        if (!existsSync(file)) {
          dead.push(`${target} (no ${relative(ROOT, file)})`);
          continue;
        }
        if (anchor && file.endsWith('.md') && !anchorsOf(file).has(anchor))
          dead.push(`${target} (no heading #${anchor} in ${relative(ROOT, file)})`);
      }
      expect(dead).toEqual([]);
    });
  }
});
