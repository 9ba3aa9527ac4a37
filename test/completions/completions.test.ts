// The shipped completion scripts must match the commands that exist: regenerate them from the
// manifest of this build and compare, then drive each one in its real shell.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeSandbox, ROOT, runCli } from '../helpers/cli.js';
import { completers, SHELLS } from '../helpers/shells.js';
import { needs } from '../helpers/programs.js';

const fresh = mkdtempSync(join(tmpdir(), 'cardctl-completions-'));
execFileSync(process.execPath, [join(ROOT, 'scripts', 'completions.mjs'), fresh], { stdio: 'pipe' });
afterAll(() => rmSync(fresh, { recursive: true, force: true }));

const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, { id: string; hidden?: boolean; flags: Record<string, { name: string; hidden?: boolean }> }>;
};
const commands = Object.values(manifest.commands).filter((c) => !c.hidden);

describe('completion scripts', () => {
  for (const shell of ['bash', 'zsh', 'fish']) {
    it(`completions/cardctl.${shell} is up to date with the commands (run \`npm run completions\` if not)`, () => {
      const committed = readFileSync(join(ROOT, 'completions', `cardctl.${shell}`), 'utf8');
      expect(committed).toBe(readFileSync(join(fresh, `cardctl.${shell}`), 'utf8'));
    });

    it(`cardctl completion ${shell} prints the shipped script`, async () => {
      const r = await runCli(['completion', shell]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(readFileSync(join(ROOT, 'completions', `cardctl.${shell}`), 'utf8'));
    });
  }

  it('names every command and every flag in each script', () => {
    for (const shell of ['bash', 'zsh', 'fish']) {
      const text = readFileSync(join(ROOT, 'completions', `cardctl.${shell}`), 'utf8');
      for (const c of commands) {
        for (const word of c.id.split(':').join(' ').split(' ')) expect(text).toContain(word);
        for (const f of Object.values(c.flags)) if (!f.hidden) expect(text).toContain(f.name);
      }
    }
  });

  it('refuses an unknown shell with exit 2 and the supported list', async () => {
    const r = await runCli(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('bash, zsh, fish');
  });
});

// Each shell, for real: bash through its programmable completion, zsh through compsys on a
// pseudo-terminal, fish through `complete -C` (test/helpers/shells.ts). A shell that is not
// installed skips its tests, reported at the end of `npm test`; CI requires them all
// (test/helpers/programs.ts).
const sb = makeSandbox();
const complete = completers(sb);
afterAll(() => sb.cleanup());

describe.each(SHELLS)('%s, the real shell', (shell) => {
  const offer = (words: string[]) => complete[shell](words);

  it.runIf(needs(shell))('completes top-level commands, subcommands and flags', () => {
    expect(offer(['cardctl', 'compl'])).toEqual(['completion']);
    const topLevel = new Set(commands.map((c) => c.id.split(':')[0]));
    expect(new Set(offer(['cardctl', '']))).toEqual(topLevel);
    const nested = commands.find((c) => c.id.includes(':'));
    if (nested) {
      const [topic, sub] = nested.id.split(':') as [string, string];
      expect(offer(['cardctl', topic, sub.slice(0, 1)])).toContain(sub);
    }
    const withFlags = commands.find((c) => Object.keys(c.flags).length > 0)!;
    const words = withFlags.id.split(':');
    const offered = offer(['cardctl', ...words, '--']);
    for (const f of Object.values(withFlags.flags)) if (!f.hidden) expect(offered).toContain(`--${f.name}`);
  });

  it.runIf(needs(shell))('completes flags after an argument, and the shell after `completion`', () => {
    expect(offer(['cardctl', 'cards', 'get', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--j']).sort()).toEqual(['--jq', '--json']);
    expect(offer(['cardctl', 'completion', '']).sort()).toEqual(['bash', 'fish', 'zsh']);
  });

  // bash leaves files to readline (`complete -o default`), which a script cannot observe.
  if (shell !== 'bash') {
    it.runIf(needs(shell))('offers files for a file flag, and none where a command is expected', () => {
      expect(offer(['cardctl', 'cards', 'issue', '--batch', ''])).toContain('rows.csv');
      expect(offer(['cardctl', 'cards', ''])).not.toContain('rows.csv');
    });
  }
});
