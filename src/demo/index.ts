// `cardctl demo`: starts the embedded mock in this process on a free loopback port, gives the
// tour a throw-away config folder and state folder (the user's profiles and journal are never
// touched), runs the tour as real child processes of the built CLI, and cleans up: the folder,
// and the PostgreSQL of the shared journal's section (a throwaway server stopped, or the database
// made on the user's server dropped: src/demo/postgres.ts), also on a failed step and on Ctrl-C.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JournalProvider } from './postgres.js';
import { Runner, StepFailed, type SkipRecord, type StepRecord } from './runner.js';
import { tourContext } from './context.js';
import { runTour } from './sections/index.js';

export interface DemoOptions {
  /** keep the temporary folder (profiles, journal, data files) and print its path, and the database made on a server of the user's */
  keep?: boolean;
  /** seed of the mock: the same seed gives the same ids and secrets */
  seed?: number;
  /** where the tour is printed (stdout normally; stderr when the summary is JSON) */
  out?: NodeJS.WritableStream & { isTTY?: boolean };
  /** environment the children start from (CARDCTL_* variables are dropped) */
  env?: NodeJS.ProcessEnv;
}

export interface DemoSummary {
  ok: boolean;
  failed_step: string | null;
  message: string | null;
  steps: StepRecord[];
  /** sections that could not run here, and why (the shared journal's, without a PostgreSQL) */
  skipped: SkipRecord[];
  duration_ms: number;
  /** the kept folder, with --keep */
  folder: string | null;
}

/** The CLI entry next to this build: dist/demo/index.js -> bin/run.js; none in the single-file binary, which runs itself (docs/binary.md). */
const BIN = (globalThis as Record<symbol, unknown>)[Symbol.for('cardctl.binary')]
  ? undefined
  : fileURLToPath(new URL('../../bin/run.js', import.meta.url));

function childEnv(base: NodeJS.ProcessEnv, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // the user's own credentials, profile choice, mock and journal must not leak into the tour; the
  // PG* variables reach only the shared journal's steps, and only for a server of the user's
  for (const [k, v] of Object.entries(base))
    if (v !== undefined && !k.startsWith('CARDCTL_') && !/^PG[A-Z_]+$/.test(k) && k !== 'FORCE_COLOR') env[k] = v;
  return { ...env, NO_COLOR: '1', ...extra };
}

export async function runDemo(options: DemoOptions = {}): Promise<DemoSummary> {
  const started = Date.now();
  const out = options.out ?? process.stdout;
  const [{ startMock }, { chalkFor }] = await Promise.all([import('../mock/index.js'), import('../output/color.js')]);
  const chalk = await chalkFor(out);
  // `cardctl demo | head`: once the reader is gone, stop writing but still clean up
  let outClosed = false;
  out.on('error', () => void (outClosed = true));
  // once interrupted, the steps the signal ended are not reported as failures
  let interrupted = false;
  const write = (text: string): void => void (outClosed || interrupted || out.write(text));

  const folder = mkdtempSync(join(tmpdir(), 'cardctl-demo-'));
  const dirs = { config: join(folder, 'config'), state: join(folder, 'state'), files: join(folder, 'files') };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true, mode: 0o700 });
  const userEnv = options.env ?? process.env;
  const journals = new JournalProvider({ env: userEnv, keep: options.keep === true });
  /** Undoes what the shared journal's section made; says what could not be undone (a database left on the user's server). */
  const closeJournals = async (): Promise<void> => {
    try {
      await journals.close();
    } catch (err) {
      if (!outClosed) out.write(chalk.red(`✗ ${(err as Error).message}`) + '\n');
    }
  };
  // Ctrl-C (or a closed terminal): the children get the signal too (a plain SIGTERM does not, so
  // they are ended here); stop the PostgreSQL the tour started (or drop its database), remove what
  // we created. A second signal exits at once (the throwaway server then gets SIGQUIT at exit).
  const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const onSignal = (signal: NodeJS.Signals): void => {
    const code = signal === 'SIGINT' ? 130 : 143;
    if (interrupted) process.exit(code);
    interrupted = true;
    runner?.stopAll();
    const late = setTimeout(() => process.exit(code), 20_000); // a server of the user's that does not answer
    void closeJournals().finally(() => {
      clearTimeout(late);
      if (!options.keep) rmSync(folder, { recursive: true, force: true });
      process.exit(code);
    });
  };
  for (const s of SIGNALS) process.on(s, onSignal);

  let mock: Awaited<ReturnType<typeof startMock>> | undefined;
  let runner: Runner | undefined;
  let failed: StepFailed | undefined;
  let message: string | null = null;
  try {
    mock = await startMock({ port: 0, ...(options.seed !== undefined ? { seed: options.seed } : {}) });
    const m = mock;
    const control = async (method: string, path: string, body?: unknown): Promise<any> => {
      const res = await fetch(m.controlUrl + path, {
        method,
        headers: {
          Authorization: `Bearer ${m.controlToken}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const parsed = (await res.json()) as { success?: boolean; data?: unknown; message?: string };
      if (!parsed.success) throw new Error(`mock control ${method} ${path}: ${parsed.message ?? res.status}`);
      return parsed.data;
    };
    runner = new Runner({
      node: process.execPath,
      bin: BIN,
      cwd: dirs.files,
      env: childEnv(options.env ?? process.env, {
        CARDCTL_CONFIG_DIR: dirs.config,
        CARDCTL_STATE_DIR: dirs.state,
        XDG_STATE_HOME: dirs.state,
        CARDCTL_MOCK_URL: m.controlUrl,
        CARDCTL_MOCK_TOKEN: m.controlToken,
      }),
      write,
      chalk,
      secrets: [m.keys.test.secret, m.keys.live.secret, m.webhookSecret, m.controlToken],
    });

    write(chalk.bold('cardctl demo: a tour of every capability, against the embedded mock\n'));
    write(chalk.dim(`mock API      ${m.baseUrl}`) + '\n');
    write(chalk.dim(`scratch       ${folder} (profiles, journal and data files; your own are not touched)`) + '\n');
    write(chalk.dim('mock commands find the control plane in CARDCTL_MOCK_URL and CARDCTL_MOCK_TOKEN') + '\n');
    // a server of the user's is asked for: a URL that cannot be used stops the demo now, not 20 s in
    if (journals.namedByUser()) await journals.offer();
    await runTour(
      tourContext({ r: runner, mock: m, files: dirs.files, control, sharedJournal: () => journals.offer() }),
    );
  } catch (err) {
    if (err instanceof StepFailed) failed = err;
    else {
      message = err instanceof Error ? err.message : String(err);
      write(chalk.red.bold(`✗ the demo stopped: ${message}`) + '\n');
    }
  } finally {
    runner?.stopAll(); // a background step left running by a failed step
    await closeJournals();
    await mock?.close();
    if (!interrupted) {
      for (const s of SIGNALS) process.removeListener(s, onSignal);
      if (!options.keep) rmSync(folder, { recursive: true, force: true });
    }
  }
  // interrupted: the signal's handler cleans up and exits (130 or 143), nothing more is reported
  if (interrupted) await new Promise(() => {});

  const steps = runner?.records ?? [];
  const skipped = runner?.skipped ?? [];
  const ok = !failed && message === null && steps.every((s) => s.ok);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  // the section's topic (its title up to the colon) and why
  const skips = skipped.map((s) => ` (skipped: ${s.section.replace(/:.*/, '')}, ${s.reason})`).join('');
  if (ok) write('\n' + chalk.green.bold(`✓ all ${steps.length} steps passed in ${seconds} s`) + skips + '\n');
  else
    write(
      '\n' +
        chalk.red.bold(
          `✗ ${failed ? `step "${failed.step}" failed: ${failed.message}` : `the demo stopped: ${message}`}`,
        ) +
        '\n',
    );
  if (options.keep) write(`kept: ${folder}\n`);
  const keptDatabase = journals.kept();
  if (keptDatabase) write(`kept: ${keptDatabase}\n`);
  return {
    ok,
    failed_step: failed?.step ?? null,
    message: failed?.message ?? message,
    steps,
    skipped,
    duration_ms: Date.now() - started,
    folder: options.keep ? folder : null,
  };
}
