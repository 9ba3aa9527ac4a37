// `cardctl mock start`: start the mock, record where its control plane is (mocks/<pid>.json,
// 0600: one record per running mock, see registry.ts), optionally save profiles, say the banner
// (for people on stderr; the --json one is the first stdout line, as the command's streaming
// result: src/output/stream.ts) and serve until SIGINT or SIGTERM.
import { dirname } from 'node:path';
import { CardctlError } from '../../errors.js';
import { startMock, DEFAULT_PORT, MAX_REQUEST_LOG_SIZE, type MockServer } from '../../mock/index.js';
import { requestLine } from './request-lines.js';
import { checkEndpointUrl, endpointUrlVerdict } from '../../mock/endpoint-url.js';
import { systemLookup } from '../../mock/host-lookup.js';
import { StateFileError } from '../../mock/persistence.js';
import { describeMock, forgetMock, mockOnSameFile, mocksDir, recordMock, runningMocks } from './registry.js';
import { resolveStatePath } from '../../mock/state-path.js';
import { keptNote, saveMockProfiles, type SavedProfiles } from './saved-profiles.js';
import { streamResult, type StreamItem, type StreamResult } from '../../output/stream.js';

export interface LaunchOptions {
  host: string;
  port: number;
  stateFile?: string;
  /** with stateFile: salvage a damaged state up to the damage */
  recover?: boolean;
  seed?: number;
  saveProfiles: boolean;
  webhookUrls: string[];
  rateLimit?: number;
  json: boolean;
  /** how many answered requests the request log keeps (0: off) */
  requestLog?: number;
  /** print each request's log line on stderr as it is answered */
  log?: boolean;
  /** serve the web console; its login address is printed on stderr */
  console?: boolean;
}

/** What the launcher is given: stderr for its notes, banner and log (its stdout is its result). */
export interface LaunchIO {
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

export function bannerObject(mock: MockServer): Record<string, unknown> {
  return {
    base_url: mock.baseUrl,
    control_url: mock.controlUrl,
    control_token: mock.controlToken,
    merchant_id: mock.merchantId,
    keys: {
      test: { key_id: mock.keys.test.keyId, secret: mock.keys.test.secret },
      live: { key_id: mock.keys.live.keyId, secret: mock.keys.live.secret },
    },
    webhook_secret: mock.webhookSecret,
    products: mock.products,
    networks: mock.networks,
  };
}

/** The readable banner: no secret in it (they are in the --json banner, the profiles and the mock's record only). */
function readableBanner(mock: MockServer, mockFile: string, saved: SavedProfiles | null, stateFile?: string): string {
  const lines = [
    `cardctl mock listening on ${mock.baseUrl}`,
    `  control plane   ${mock.controlUrl}  (token in ${mockFile || 'the --json banner'})`,
    `  merchant        ${mock.merchantId}`,
    `  test key        ${mock.keys.test.keyId}`,
    `  live key        ${mock.keys.live.keyId}`,
    `  networks        ${mock.networks.join(', ') || '(none)'}`,
    `  state           ${stateFile ?? 'in memory'}`,
    '  products:',
    ...mock.products.map(
      (p) =>
        `    ${p.id}  ${p.name}  min ${p.min_initial_load_minor}, fee ${p.issue_fee_minor}${p.default ? ', default' : ''}${p.enabled ? '' : ', not enabled'}${p.available ? '' : ', unavailable'}`,
    ),
    saved
      ? `  profiles ${saved.test} and ${saved.live} saved: try \`cardctl customers list -p ${saved.test}\``
      : '  secrets: run with --json, or --save-profiles to store them as profiles mock-test and mock-live',
    'Press Ctrl-C to stop.',
  ];
  return lines.join('\n') + '\n';
}

function check(opts: LaunchOptions): void {
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535)
    throw new CardctlError(`--port must be 0 to 65535, not ${opts.port}.`, { kind: 'usage' });
  if (opts.rateLimit !== undefined && (!Number.isInteger(opts.rateLimit) || opts.rateLimit < 1)) {
    throw new CardctlError('--rate-limit must be a whole number of requests per minute, at least 1.', {
      kind: 'usage',
    });
  }
  if (
    opts.requestLog !== undefined &&
    (!Number.isInteger(opts.requestLog) || opts.requestLog < 0 || opts.requestLog > MAX_REQUEST_LOG_SIZE)
  ) {
    throw new CardctlError(
      `--request-log must be a whole number of requests from 0 (no log) to ${MAX_REQUEST_LOG_SIZE}.`,
      { kind: 'usage' },
    );
  }
  if (opts.log && opts.requestLog === 0) {
    throw new CardctlError('--log prints the request log, which --request-log 0 turns off.', {
      kind: 'usage',
      hint: 'Drop --request-log 0, or give it a size (the default keeps 10,000).',
    });
  }
  for (const url of opts.webhookUrls) {
    const checked = checkEndpointUrl(url);
    if (!checked.ok) throw new CardctlError(`--webhook ${JSON.stringify(url)}: ${checked.problem}`, { kind: 'usage' });
  }
}

/** The rules of registration for each --webhook, its host resolved (before anything starts). */
async function checkWebhooks(urls: string[]): Promise<void> {
  for (const url of urls) {
    const verdict = await endpointUrlVerdict(url, systemLookup);
    if (!verdict.ok) throw new CardctlError(`--webhook ${JSON.stringify(url)}: ${verdict.problem}`, { kind: 'usage' });
  }
}

function realStatePath(file: string): string {
  try {
    return resolveStatePath(file);
  } catch (err) {
    throw err instanceof StateFileError ? new CardctlError(err.message, { kind: 'usage' }) : err;
  }
}

/**
 * Starts the mock and returns once it serves: the result is the stream of what it prints (with
 * --json its banner, one item), which ends once the mock was stopped by SIGINT or SIGTERM and closed.
 */
export async function launchMock(opts: LaunchOptions, io: LaunchIO): Promise<StreamResult> {
  check(opts);
  await checkWebhooks(opts.webhookUrls);
  const dir = await mocksDir(io.env);
  const stateFile = opts.stateFile ? realStatePath(opts.stateFile) : undefined;
  const sharing = stateFile ? mockOnSameFile(dir, stateFile) : undefined;
  if (sharing) {
    throw new CardctlError(
      `the state file ${opts.stateFile} is another name (a hard link) of ${sharing.state_file}, in use by a running mock (${describeMock(sharing)}): two mocks on one file would each lose the other's changes.`,
      {
        kind: 'usage',
        hint: 'Stop that mock first, or give --state another file (a copy, not a link).',
      },
    );
  }
  // the profiles of a mock still running are never replaced behind its back
  const owner = opts.saveProfiles ? runningMocks(dir).find((m) => m.profiles) : undefined;
  if (owner) {
    throw new CardctlError(
      `profiles mock-test and mock-live belong to the mock still running (${describeMock(owner)}).`,
      {
        kind: 'usage',
        hint: 'Stop that mock first, or start this one without --save-profiles (its keys are in its --json banner).',
      },
    );
  }
  // Installed before anything is printed: a signal sent as soon as the banner shows must find them.
  let stopSignal: NodeJS.Signals | null = null;
  let wake = (): void => {};
  const stopped = new Promise<void>((resolve) => (wake = resolve));
  // They stay installed: conf's exit hook (when-exit) re-raises the signal after its own
  // cleanup, and that second delivery must not kill the process mid-close. Signal listeners
  // do not keep the process alive, so it still exits once the mock is closed.
  const stop = (signal: NodeJS.Signals) => {
    stopSignal ??= signal;
    wake();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  let mock: MockServer;
  try {
    mock = await startMock({
      host: opts.host,
      port: opts.port,
      seed: opts.seed,
      stateFile: opts.stateFile,
      recover: opts.recover,
      rateLimit: opts.rateLimit,
      webhookUrls: opts.webhookUrls,
      requestLog: opts.requestLog,
    });
  } catch (err) {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    if (err instanceof StateFileError) throw new CardctlError(err.message, { kind: 'usage' });
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new CardctlError(`port ${opts.port} on ${opts.host} is already in use.`, {
        kind: 'unavailable',
        hint: `Stop what runs there, or pick another port: \`cardctl mock start --port ${opts.port === DEFAULT_PORT ? 4011 : 0}\` (0 picks a free one).`,
      });
    }
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EACCES') {
      throw new CardctlError(`cannot listen on ${opts.host}:${opts.port} (${code}).`, {
        kind: 'usage',
        hint: 'Use a local address such as 127.0.0.1, and a port above 1023.',
      });
    }
    throw err;
  }

  if (mock.recovered) {
    const r = mock.recovered;
    io.stderr.write(
      `recovered ${opts.stateFile}: kept ${r.batches} saved batch${r.batches === 1 ? '' : 'es'} before the damage (${r.damage}); the damaged files were kept aside as ${r.keptAs.join(', ')}.\n`,
    );
  } else if (opts.recover) {
    io.stderr.write(`--recover: ${opts.stateFile ?? 'the state'} had no damage; nothing was set aside.\n`);
  }
  if (mock.migrated)
    io.stderr.write(
      `note: ${opts.stateFile} was in the format before checksums; it was rewritten in format 2 (docs/mock-state.md).\n`,
    );

  let mockFile = '';
  try {
    const others = runningMocks(dir);
    try {
      mockFile = recordMock(dir, {
        control_url: mock.controlUrl,
        control_token: mock.controlToken,
        base_url: mock.baseUrl,
        pid: process.pid,
        started_at: new Date().toISOString(),
        profiles: opts.saveProfiles,
        ...(stateFile ? { state_file: stateFile } : {}),
      });
    } catch (err) {
      io.stderr.write(
        `warning: could not record this mock in ${dir} (${(err as Error).message}); control commands need CARDCTL_MOCK_URL and CARDCTL_MOCK_TOKEN.\n`,
      );
    }
    if (mockFile && others.length > 0) {
      io.stderr.write(
        `note: ${others.length === 1 ? 'another mock is' : `${others.length} other mocks are`} running (${others.map(describeMock).join('; ')}); ` +
          'the `cardctl mock ...` commands now use this one, the newest, until it stops (CARDCTL_MOCK_URL and CARDCTL_MOCK_TOKEN pick another).\n',
      );
    }

    // never a profile the mock did not write: a user's mock-test is kept, the mock's saved beside it
    const saved = opts.saveProfiles ? await saveMockProfiles(mock, dirname(dir), io.env) : null;
    if (saved) io.stderr.write(keptNote(saved));

    if (!opts.json) io.stderr.write(readableBanner(mock, mockFile, saved, opts.stateFile));
    if (opts.console)
      io.stderr.write(
        `console: ${mock.consoleLoginUrl()}\n  (open it in a browser on this machine; the code works once, for 10 minutes; \`cardctl mock console\` prints a new one)\n`,
      );
  } catch (err) {
    // the server is up: close it, or the process would keep serving after reporting the error
    await mock.close();
    forgetMock(mockFile, mock.controlToken);
    throw err;
  }
  const m = mock;
  // the --json banner (for people it went to stderr above), then serve until stopped; closed
  // also when the output stops reading (the stream is left early)
  async function* serve(): AsyncGenerator<StreamItem> {
    try {
      yield { json: bannerObject(m), text: null };
      if (opts.log) m.onRequest((record) => io.stderr.write(requestLine(record) + '\n'));
      await stopped;
      if (!opts.json) io.stderr.write(`\n${stopSignal ?? 'signal'}: stopping the mock.\n`);
    } finally {
      await m.close();
      forgetMock(mockFile, m.controlToken);
    }
  }
  return streamResult(serve());
}
