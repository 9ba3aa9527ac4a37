// Every shell example of README.md and docs/*.md runs, as docs/README.md says: in order per
// file, against a mock started for that file (port 0, profiles saved, fresh config and state
// folders), in a scratch folder holding a copy of examples/, with its exit code and the output
// shape its `<!-- expect: ... -->` lines give checked.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { blockScript, shellBlocks } from './doc-blocks.js';
import { has, needs, programsRequired } from '../helpers/programs.js';

const files = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('CARDCTL_')) env[k] = v;
  return { ...env, NO_COLOR: '1', ...extra };
}

function run(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  timeoutMs: number,
): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), out });
    });
  });
}

/** A block that runs the jq program (not cardctl's --jq). */
const JQ_USE = /(^|[|;&(`]|\$\()\s*jq(\s|$)/m;

/**
 * Which blocks cannot run on this machine: those that run jq when it is not installed, and the
 * later ones that read what such a block leaves: a variable it sets (KEY=$(... | jq -r .key_id))
 * or a file it writes (`> twice.csv`).
 */
function blocksWithoutJq(blocks: ReadonlyArray<{ code: string }>): Set<number> {
  const out = new Set<number>();
  if (has('jq') || programsRequired()) return out;
  const missing: RegExp[] = [];
  const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  blocks.forEach((b, i) => {
    if (!JQ_USE.test(b.code) && !missing.some((re) => re.test(b.code))) return;
    out.add(i);
    for (const m of b.code.matchAll(/^\s*(?:export\s+)?([A-Za-z_]\w*)=/gm))
      missing.push(new RegExp(`\\$\\{?${m[1]}\\b`));
    for (const m of b.code.matchAll(/>>?\s*([\w./-]+)/g))
      if (!m[1]!.startsWith('/dev/')) missing.push(new RegExp(`(^|[\\s'"/=@])${escapeRegExp(m[1]!)}($|[\\s'"])`, 'm'));
  });
  return out;
}

for (const file of files) {
  const blocks = shellBlocks(readFileSync(join(ROOT, file), 'utf8')).filter((b) => !b.notRun);
  if (blocks.length === 0) continue;
  const withoutJq = blocksWithoutJq(blocks);

  describe(`shell examples of ${file}`, () => {
    let box: Sandbox;
    let mock: ChildProcess | undefined;
    let env: NodeJS.ProcessEnv;
    let work: string;
    let vars: string;

    beforeAll(async () => {
      box = makeSandbox();
      const bin = join(box.dir, 'bin');
      mkdirSync(bin);
      writeFileSync(join(bin, 'cardctl'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
      chmodSync(join(bin, 'cardctl'), 0o755);
      work = join(box.dir, 'work');
      cpSync(join(ROOT, 'examples'), join(work, 'examples'), { recursive: true });
      vars = join(box.dir, 'vars.sh');
      env = cleanEnv({ ...box.env, PATH: `${bin}:${process.env.PATH ?? ''}` });
      const m = spawn(process.execPath, [BIN, 'mock', 'start', '--port', '0', '--save-profiles', '--json'], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      mock = m;
      await new Promise<void>((resolve, reject) => {
        let out = '';
        let err = '';
        m.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
        m.stdout!.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          if (out.includes('\n')) resolve();
        });
        m.on('exit', (code) => reject(new Error(`the mock exited (${code}): ${err}`)));
      });
    });

    afterAll(async () => {
      if (mock && mock.exitCode === null) {
        const exited = new Promise((resolve) => mock!.once('exit', resolve));
        mock.kill('SIGTERM');
        await exited;
      }
      box?.cleanup();
    });

    blocks.forEach((block, i) => {
      const first =
        block.code
          .split('\n')
          .find((l) => l.trim() && !l.trim().startsWith('#'))
          ?.trim() ?? '';
      // without jq: skipped and reported at the end of `npm test` (test/helpers/programs.ts)
      it.runIf(withoutJq.has(i) ? needs('jq') : true)(
        `line ${block.line}: ${first.slice(0, 70)}`,
        async () => {
          const res = await run('bash', ['-c', blockScript(block.code, vars)], env, work, 60_000);
          const where = `${file}:${block.line}\n${block.code}\n--- output ---\n${res.out}`;
          expect(res.code, where).toBe(block.exit);
          for (const re of block.expects) expect(re.test(res.out), `expected ${re} in\n${where}`).toBe(true);
        },
        90_000,
      );
    });
  });
}
