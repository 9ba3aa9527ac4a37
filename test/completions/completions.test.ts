// The shipped completion scripts must match the commands that exist: regenerate them from the
// manifest of this build and compare, then drive the bash one the way bash itself would.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';

const fresh = mkdtempSync(join(tmpdir(), 'cardctl-completions-'));
execFileSync(process.execPath, [join(ROOT, 'scripts', 'completions.mjs'), fresh], { stdio: 'pipe' });
afterAll(() => rmSync(fresh, { recursive: true, force: true }));

const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, { id: string; hidden?: boolean; flags: Record<string, { name: string; hidden?: boolean }> }>;
};
const commands = Object.values(manifest.commands).filter((c) => !c.hidden);

/** What bash would offer for the words typed so far (the last one may be partial). */
function bashComplete(words: string[]): string[] {
  const script = `source ${JSON.stringify(join(ROOT, 'completions', 'cardctl.bash'))}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}
_cardctl; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter(Boolean);
}

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

  it('bash completes top-level commands, subcommands and flags', () => {
    expect(bashComplete(['cardctl', 'compl'])).toEqual(['completion']);
    const topLevel = new Set(commands.map((c) => c.id.split(':')[0]));
    expect(new Set(bashComplete(['cardctl', '']))).toEqual(topLevel);
    const nested = commands.find((c) => c.id.includes(':'));
    if (nested) {
      const [topic, sub] = nested.id.split(':') as [string, string];
      expect(bashComplete(['cardctl', topic, sub.slice(0, 1)])).toContain(sub);
    }
    const withFlags = commands.find((c) => Object.keys(c.flags).length > 0)!;
    const words = withFlags.id.split(':');
    const offered = bashComplete(['cardctl', ...words, '--']);
    for (const f of Object.values(withFlags.flags)) if (!f.hidden) expect(offered).toContain(`--${f.name}`);
  });

  it('refuses an unknown shell with exit 2 and the supported list', async () => {
    const r = await runCli(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('bash, zsh, fish');
  });
});
