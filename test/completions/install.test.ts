// The one install line of each shell (src/cli/completion-install.ts), as `completion --help` and
// docs/commands.md give it: the same line in both, printed unwrapped, run twice in an empty HOME
// (it installs once), and then the real shell completes cardctl with it. bash always runs; zsh
// and fish where installed (required in CI, test/helpers/programs.ts).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli } from '../helpers/cli.js';
import { needs } from '../helpers/programs.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
const dir = mkdtempSync(join(tmpdir(), 'cardctl-completion-install-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const bin = join(dir, 'bin');
mkdirSync(bin);
writeFileSync(
  join(bin, 'cardctl'),
  `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`,
);
chmodSync(join(bin, 'cardctl'), 0o755);

async function helpLines(): Promise<Record<string, string>> {
  const help = await runCli(['completion', '--help'], { env: { COLUMNS: '40' } });
  expect(help.code).toBe(0);
  const lines = help.stdout.split('\n').map((l) => l.trim());
  return Object.fromEntries(SHELLS.map((s) => [s, lines[lines.indexOf(`# ${s}`) + 1]!]));
}

/** Runs `script` in `shell` with HOME (and XDG_CONFIG_HOME) in a folder of its own, cardctl on PATH. */
function inHome(home: string, shell: string, args: string[]) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    PATH: `${bin}:${process.env.PATH}`,
    NO_COLOR: '1',
  };
  for (const k of Object.keys(env)) if (k.startsWith('CARDCTL_')) delete env[k];
  return spawnSync(shell, args, { env, encoding: 'utf8', timeout: 60_000 });
}

describe('completion install lines', () => {
  it('--help gives one line per shell, unwrapped on a narrow terminal, the same as docs/commands.md', async () => {
    const lines = await helpLines();
    const docs = readFileSync(join(ROOT, 'docs', 'commands.md'), 'utf8');
    for (const shell of SHELLS) {
      expect(lines[shell], shell).toMatch(new RegExp(`cardctl completion ${shell}`));
      expect(lines[shell]).not.toMatch(/\\$/);
      expect(docs.split('\n')).toContain(lines[shell]);
    }
    expect((await runCli(['completion', '--help'])).stdout).not.toContain('>> ~/.bashrc\n  $ cardctl completion bash'); // no snapshot line
  });

  const cases: Array<[(typeof SHELLS)[number], string, string[]]> = [
    [
      'bash',
      '.bashrc',
      [
        '-c',
        'source ~/.bashrc; complete -p cardctl; COMP_WORDS=(cardctl car); COMP_CWORD=1; _cardctl; echo "${COMPREPLY[@]}"',
      ],
    ],
    ['zsh', '.zshrc', ['-f', '-c', 'source ~/.zshrc; print -r -- ${_comps[cardctl]}']],
    ['fish', '.config/fish/completions/cardctl.fish', ['-c', 'complete -C "cardctl car"']],
  ];
  for (const [shell, file, check] of cases) {
    it.runIf(shell === 'bash' || needs(shell))(
      `${shell}: run twice, installs once, and the shell completes cardctl`,
      async () => {
        const line = (await helpLines())[shell]!;
        const home = join(dir, `home-${shell}`);
        mkdirSync(home);
        for (let i = 0; i < 2; i++) expect(inHome(home, 'sh', ['-c', line]).status).toBe(0);
        const written = readFileSync(join(home, file), 'utf8');
        expect(written.match(/cardctl completion/g)).toHaveLength(1);
        const r = inHome(home, shell, check);
        expect(r.status, r.stderr).toBe(0);
        expect(r.stdout).toMatch(shell === 'zsh' ? /^_cardctl$/m : /\bcards\b/);
      },
    );
  }
});
