// The dependency rules of docs/ARCHITECTURE.md, read from the imports of src/ (static and
// dynamic): what each part may import of the project.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const SRC = join(ROOT, 'src');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every import of every source file: the importing file and what it imports (a path under src/ when local, else the package). */
const edges: Array<{ from: string; to: string; local: boolean }> = files(SRC).flatMap((file) => {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*)'([^']+)'/g)].map((m) => m[1]!);
  return specs.map((s) => ({
    from: relative(SRC, file),
    to: s.startsWith('.') ? relative(SRC, resolve(dirname(file), s)) : s,
    local: s.startsWith('.'),
  }));
});

const part = (path: string): string => path.split('/')[0]!;

describe('architecture: the imports of src/', () => {
  it('finds the imports (the rules below check something)', () => {
    expect(edges.length).toBeGreaterThan(300);
    expect(edges.some((e) => part(e.from) === 'client' && part(e.to) === 'signing')).toBe(true);
  });

  it('contract and signing import nothing else of the project', () => {
    for (const p of ['contract', 'signing'])
      expect(edges.filter((e) => part(e.from) === p && e.local && part(e.to) !== p)).toEqual([]);
  });

  it('client and mock never import each other; nothing imports commands', () => {
    expect(edges.filter((e) => part(e.from) === 'client' && part(e.to) === 'mock')).toEqual([]);
    expect(edges.filter((e) => part(e.from) === 'mock' && part(e.to) === 'client')).toEqual([]);
    expect(edges.filter((e) => part(e.to) === 'commands' && part(e.from) !== 'commands')).toEqual([]);
  });

  it('the console builds on mock and signing only; of the mock, only startMock (its composition root) imports it', () => {
    expect(
      edges.filter(
        (e) => part(e.from) === 'console' && e.local && !['console', 'mock', 'signing'].includes(part(e.to)),
      ),
    ).toEqual([]);
    expect(edges.filter((e) => part(e.to) === 'console' && part(e.from) !== 'console').map((e) => e.from)).toEqual([
      'mock/index.ts',
    ]);
  });

  it('client never imports upward (output, cli): escaping and the streams sit below both (src/terminal-text.ts, src/io.ts)', () => {
    expect(
      edges.filter((e) => part(e.from) === 'client' && e.local && ['output', 'cli', 'demo'].includes(part(e.to))),
    ).toEqual([]);
    expect(edges.filter((e) => part(e.from) === 'client' && e.to === 'terminal-text.js')).not.toEqual([]);
  });

  it('src/terminal-text.ts and src/io.ts import nothing of the project', () => {
    expect(edges.filter((e) => ['terminal-text.ts', 'io.ts'].includes(e.from) && e.local)).toEqual([]);
  });

  it('commands take Args, Flags and Command from src/cli/oclif.ts, never from @oclif/core', () => {
    expect(edges.filter((e) => part(e.from) === 'commands' && e.to === '@oclif/core')).toEqual([]);
  });

  it("commands and the client never write to the process's streams; commands never write stdout: they return results (src/output/render.ts)", () => {
    const texts = files(SRC).map((file) => ({ file: relative(SRC, file), text: readFileSync(file, 'utf8') }));
    const code = (text: string): string => text.replace(/^\s*(\/\/|\*|\/\*\*).*$/gm, ''); // comments may name them
    const writers = texts.filter(
      (f) =>
        ['commands', 'client'].includes(part(f.file)) &&
        /process\.(stdout|stderr)\b|console\.(log|error|warn|info)\b/.test(code(f.text)),
    );
    expect(writers.map((f) => f.file)).toEqual([]);
    // the demo hands stdout to its tour (the child processes' own output, shown as it runs)
    const stdoutInCommands = texts.filter(
      (f) =>
        part(f.file) === 'commands' &&
        f.file !== 'commands/demo.ts' &&
        /\.stdout\b|\bprint(Json)?\(/.test(code(f.text)),
    );
    expect(stdoutInCommands.map((f) => f.file)).toEqual([]);
  });
});
