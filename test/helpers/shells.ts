// Asks real bash, zsh and fish what they would offer on Tab, with the shipped completion scripts
// installed the way the README says, `cardctl` on PATH (as after `npm install -g .`) and the
// sandbox's config folder. Nothing here passes without having run the shell: a test of a shell
// that is not installed is skipped (and named at the end of `npm test`), or in CI, which requires
// every program, fails with how to install it (test/helpers/programs.ts; docs/commands.md,
// "Completion tests").
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, ROOT, type Sandbox } from './cli.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** What the shell offers for the words typed so far (the last one may be partial or empty). */
export type Complete = (words: string[]) => string[];

export interface Completers {
  /** The folder completion runs in: it holds one file, `rows.csv`. */
  cwd: string;
  bash: Complete;
  zsh: Complete;
  fish: Complete;
}

const script = (shell: Shell) => join(ROOT, 'completions', `cardctl.${shell}`);

function run(shell: Shell, args: string[], env: NodeJS.ProcessEnv, cwd: string): string[] {
  const r = spawnSync(shell, args, { encoding: 'utf8', env, cwd, timeout: 20_000 });
  if ((r.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
    throw new Error(
      `${shell} is not installed, and the completion tests run the real shell: install it (Debian/Ubuntu: apt-get install ${shell}; .ci/run does).`,
    );
  }
  if (r.error) throw r.error;
  if (r.status !== 0 || r.stderr !== '') throw new Error(`${shell} exited ${r.status}: ${r.stderr}`);
  return r.stdout.split('\n').filter(Boolean);
}

export function completers(sb: Sandbox): Completers {
  const shimDir = join(sb.dir, 'bin');
  mkdirSync(shimDir, { recursive: true });
  writeFileSync(
    join(shimDir, 'cardctl'),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`,
  );
  chmodSync(join(shimDir, 'cardctl'), 0o755);
  const cwd = join(sb.dir, 'cwd');
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, 'rows.csv'), 'customer,amount\n');
  // zsh: `cardctl completion zsh > "${fpath[1]}/_cardctl"`; fish: ~/.config/fish/completions/cardctl.fish.
  const fpathDir = join(sb.dir, 'zsh-functions');
  mkdirSync(fpathDir, { recursive: true });
  copyFileSync(script('zsh'), join(fpathDir, '_cardctl'));
  const xdgConfig = join(sb.dir, 'xdg-config');
  mkdirSync(join(xdgConfig, 'fish', 'completions'), { recursive: true });
  copyFileSync(script('fish'), join(xdgConfig, 'fish', 'completions', 'cardctl.fish'));
  const env = {
    ...process.env,
    ...sb.env,
    XDG_CONFIG_HOME: xdgConfig,
    XDG_DATA_HOME: join(sb.dir, 'xdg-data'),
    HOME: sb.dir,
    PATH: `${shimDir}:${process.env.PATH}`,
  };

  return {
    cwd,
    bash: (words) => {
      const s = `source ${JSON.stringify(script('bash'))}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}
_cardctl; printf '%s\\n' "\${COMPREPLY[@]}"`;
      return run('bash', ['-c', s], env, cwd);
    },
    zsh: (words) => {
      const errFile = join(sb.dir, 'zsh-complete.err');
      writeFileSync(errFile, '');
      return run(
        'zsh',
        ['-f', join(ROOT, 'test', 'helpers', 'zsh-complete.zsh'), fpathDir, words.join(' '), errFile],
        env,
        cwd,
      );
    },
    // `complete -C` is fish's own completion of a command line; each line is "match<TAB>description".
    fish: (words) =>
      run('fish', ['-c', 'complete -C $argv[1]', words.join(' ')], env, cwd).map((l) => l.split('\t')[0]!),
  };
}
