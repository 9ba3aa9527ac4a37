// The doc-example convention of docs/README.md, on small samples: which blocks run, their
// expected exit code and output checks, and variables carried from one block to the next.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blockScript, shellBlocks } from './doc-blocks.js';

const SAMPLE = [
  '# Title',
  '```sh',
  'X=$(echo hello)',
  '```',
  '<!-- expect: ^hel+o$ -->',
  '<!-- expect: world -->',
  '',
  '```text',
  '$ not run',
  '```',
  '<!-- not run: needs a real account -->',
  '```sh',
  'cardctl smoke -p prod',
  '```',
  '```sh',
  'echo "$X"',
  'false   # exit 1',
  '```',
].join('\n');

describe('doc blocks', () => {
  it('finds the ```sh blocks, their expects, `# exit N` and `not run`', () => {
    const blocks = shellBlocks(SAMPLE);
    expect(blocks.map((b) => [b.line, b.exit, b.notRun ?? null])).toEqual([
      [2, 0, null],
      [12, 0, 'needs a real account'],
      [15, 1, null],
    ]);
    expect(blocks[0]!.expects.map(String)).toEqual(['/^hel+o$/m', '/world/m']);
  });

  it('refuses a block never closed and an expect that is not a regular expression', () => {
    expect(() => shellBlocks('```sh\necho\n')).toThrow(/line 1: a code block is never closed/);
    expect(() => shellBlocks('```sh\necho\n```\n<!-- expect: ( -->\n')).toThrow(
      /line 4: the expect is not a regular expression/,
    );
  });

  it('runs under set -e, merges stderr, and carries variables to the next block', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cardctl-doc-blocks-'));
    try {
      const vars = join(dir, 'vars.sh');
      const a = spawnSync('bash', ['-c', blockScript('A="two words"\nB=$(echo b)\necho out; echo err >&2', vars)], {
        encoding: 'utf8',
      });
      expect([a.status, a.stdout]).toEqual([0, 'out\nerr\n']);
      const b = spawnSync('bash', ['-c', blockScript('echo "$A/$B"\nfalse\necho never', vars)], { encoding: 'utf8' });
      expect([b.status, b.stdout]).toEqual([1, 'two words/b\n']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
