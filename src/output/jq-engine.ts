// jq itself for `--jq` (src/output/jq.ts): jq-web's WebAssembly, started only when a program is
// not a path src/output/jq-paths.ts runs, or a path's input needs jq. Its glue is compiled with
// V8's code cache and an expression it compiled once is marked (the user's cache folder).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';
import { cacheFolder } from '../cache-folder.js';
import { usageError } from '../errors.js';
import type { JqProgram } from './jq.js';

interface JqWeb {
  raw(input: string, filter: string, flags?: string[]): string | undefined;
}

let engine: Promise<JqWeb> | undefined;

function loadEngine(): Promise<JqWeb> {
  if (!engine) {
    // V8 would recompile jq's hot functions with its optimizing compiler while a one-shot filter
    // runs: a quarter of the CPU of `--jq .id`, never paid back (bench/README.md, "--jq").
    // Affects WebAssembly only; set before jq's module is compiled.
    setFlagsFromString('--liftoff-only');
    // jq-web is CommonJS whose export is the promise of the instantiated module
    engine = (jqWebWithCodeCache() ?? createRequire(import.meta.url)('jq-web')) as Promise<JqWeb>;
  }
  return engine;
}

/**
 * jq-web's JavaScript (4,600 lines of emscripten glue) compiled with V8's code cache of an earlier
 * run, kept in the user's cache folder, as bin/run.js does for cardctl's own bundles: Node 20's
 * CommonJS loader keeps nothing between runs. Written at exit when there was none (or V8 refused
 * it). Undefined where jq-web is not a file of node_modules (the single-file binary bundles it),
 * or with CARDCTL_NO_CODE_CACHE: then it is required as usual.
 */
function jqWebWithCodeCache(): Promise<JqWeb> | undefined {
  if (process.env.CARDCTL_NO_CODE_CACHE) return undefined;
  let file: string;
  let version: string;
  try {
    const req = createRequire(import.meta.url);
    file = req.resolve('jq-web');
    version = (req('jq-web/package.json') as { version: string }).version;
  } catch {
    return undefined;
  }
  const cacheFile = join(cacheFolder(), `jq-web-${version}-${process.version}-${process.arch}.cache`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // none yet
  }
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'utf8')}\n})`;
  const script = new Script(wrapped, { filename: file, cachedData });
  if (!cachedData || script.cachedDataRejected)
    process.once('exit', () => {
      try {
        mkdirSync(dirname(cacheFile), { recursive: true, mode: 0o700 });
        writeFileSync(`${cacheFile}.${process.pid}`, script.createCachedData());
        renameSync(`${cacheFile}.${process.pid}`, cacheFile);
      } catch {
        // a folder that cannot be written: the next run compiles it again
      }
    });
  const m = { exports: {} as unknown };
  (script.runInThisContext() as (...a: unknown[]) => void)(m.exports, createRequire(file), m, file, dirname(file));
  return m.exports as Promise<JqWeb>;
}

/**
 * Checking an expression is a whole run of jq (its builtins parsed and bound, then the program
 * compiled), as costly as the filter's own run: an expression this jq compiled once is marked
 * in the user's cache folder (a file named by the SHA-256 of jq's build and the expression; the
 * expression itself is not written), and its later runs skip the check. Only compiling
 * expressions are marked, so a mark never lets a bad one through. (V8 cannot keep compiled
 * WebAssembly between processes in Node: bench/README.md, "--jq".)
 */
function checkedMark(expr: string): string | undefined {
  if (process.env.CARDCTL_NO_CODE_CACHE) return undefined;
  let version: string;
  try {
    version = (createRequire(import.meta.url)('jq-web/package.json') as { version: string }).version;
  } catch {
    return undefined; // the single-file binary: no package.json of jq-web to read
  }
  const id = createHash('sha256').update(`jq-web ${version}\0${expr}`).digest('hex');
  return join(cacheFolder(), 'jq-checked', id.slice(0, 2), id.slice(2));
}

function remember(file: string): void {
  try {
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
    writeFileSync(file, '');
  } catch {
    // a cache that cannot be written is skipped: the next run checks again
  }
}

/** jq's message without its "jq: error" prefixes and "compile error" trailer. */
function jqMessage(err: unknown): string {
  const e = err as { stderr?: unknown; message?: unknown };
  const text = typeof e.stderr === 'string' && e.stderr ? e.stderr : String(e.message ?? err);
  return text
    .split('\n')
    .filter((l) => l.trim() !== '' && !/^jq: \d+ compile errors?$/.test(l) && !/^Non-zero exit code/.test(l))
    .map((l) => l.replace(/^jq: error(?: \(at [^)]*\))?: /, '').trimEnd())
    .join('\n');
}

/** Runs jq once; emscripten sets process.exitCode on a failed run, which must not leak into cardctl's. */
function runJq(jq: JqWeb, input: string, filter: string, flags: string[]): string {
  const exitCode = process.exitCode;
  try {
    return jq.raw(input, filter, flags) ?? '';
  } finally {
    process.exitCode = exitCode;
  }
}

/** The program run by jq itself (jq-web). */
export async function compileWithJq(expr: string): Promise<JqProgram> {
  const jq = await loadEngine();
  const checked = checkedMark(expr);
  if (!checked || !existsSync(checked)) {
    try {
      runJq(jq, '', expr, []); // no input: jq compiles the program and runs it on nothing
    } catch (err) {
      const message = jqMessage(err);
      throw usageError(
        `--jq: the expression does not compile:\n${message}`,
        "It is jq's language (https://jqlang.org/manual/); quote it for your shell, e.g. --jq '.data[] | .id'.",
      );
    }
    if (checked) remember(checked);
  }
  return {
    run(text: string): string {
      if (text.trim() === '') return '';
      try {
        const out = runJq(jq, text, expr, ['-r', '-c']);
        return out === '' || out.endsWith('\n') ? out : out + '\n';
      } catch (err) {
        throw usageError(
          `--jq: the expression failed on the answer: ${jqMessage(err)}`,
          'The request itself succeeded; check the expression against the shape --json prints.',
        );
      }
    },
  };
}
