// `cardctl doctor`: what stands between this machine and a working call, checked in the order
// a failure would hide the next: credentials, journal, reach, clock, key, mode, scopes. Every
// probe is a request the API cannot act on (a read, or a write on an id that does not exist,
// or a body it refuses), so running doctor against a live key changes nothing.
import type { Io } from '../io.js';
import { dirname } from 'node:path';
import { CardctlError, type ErrorKind } from '../errors.js';
import { probeStateFolder } from './state-folder.js';
import type { Credentials } from '../profiles/types.js';
import type { Scope } from '../contract/routes.js';
import { ApiError, type ApiClient, type ApiResponse } from './client.js';
import { clockSkewSeconds, header } from './errors.js';

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skipped';

export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
  /** what to do, for warn and fail */
  hint?: string;
  /** for a failure: decides the exit code */
  kind?: ErrorKind;
}

export interface DoctorReport {
  ok: boolean;
  profile: {
    name: string;
    source: string;
    mode: string;
    key_id: string;
    base_url: string;
    secret_source: 'environment' | 'profile' | 'command';
  } | null;
  checks: Check[];
}

/** Per probe: a health check that waits 30 s per request is not one. */
const DOCTOR_TIMEOUT_MS = 10_000;

/** A well-formed id that names nothing: reads answer 404, writes on it change nothing. */
const NO_SUCH_ID = '00000000000000000000000000';

interface Probe {
  scope: Scope;
  method: string;
  path: string;
  body?: string;
}

// One probe per scope. Writes are sent where they cannot act: a PATCH or a freeze of an id
// that does not exist (404), a deposit address without a network (422). None is a money route.
const PROBES: readonly Probe[] = [
  { scope: 'customers.read', method: 'GET', path: '/customers?per_page=1' },
  { scope: 'customers.write', method: 'PATCH', path: `/customers/${NO_SUCH_ID}`, body: '{}' },
  { scope: 'cards.read', method: 'GET', path: `/cards/${NO_SUCH_ID}` },
  { scope: 'cards.write', method: 'POST', path: `/cards/${NO_SUCH_ID}/freeze` },
  { scope: 'deposits.read', method: 'GET', path: '/deposit-addresses' },
  { scope: 'deposits.write', method: 'POST', path: '/deposit-addresses', body: '{}' },
];

interface ProbeResult {
  probe: Probe;
  res?: ApiResponse;
  err?: CardctlError;
}

const gatewayCode = (r: ProbeResult): string | undefined => r.err?.code;
const answered = (r: ProbeResult): ApiResponse | undefined =>
  r.res ?? (r.err instanceof ApiError ? r.err.response : undefined);

async function send(client: ApiClient, probe: Probe): Promise<ProbeResult> {
  try {
    return { probe, res: await client.send({ method: probe.method, path: probe.path, body: probe.body }) };
  } catch (err) {
    if (err instanceof CardctlError) return { probe, err };
    throw err;
  }
}

/** 403 without a gateway code on a funding route: the live-only refusal a test key gets there. */
const liveOnlyRefusal = (r: ProbeResult): boolean =>
  r.probe.scope.startsWith('deposits.') && r.err?.status === 403 && !r.err.code;

export interface DoctorDeps {
  resolve: () => Promise<Credentials>;
  client: (credentials: Credentials) => ApiClient;
  /** unknown outcomes in the journal: sent with the credentials in use (`mine`), and with others */
  unresolvedOps: (credentials: Credentials) => Promise<{ file: string; mine: number; others: number; size?: string }>;
  /** the proxy and CA certificates requests will use (sets the transport up) */
  network?: (credentials: Credentials) => Check;
  now?: () => number;
}

export async function runDoctor(deps: DoctorDeps): Promise<DoctorReport> {
  const checks: Check[] = [];
  const skip = (...names: string[]) =>
    names.forEach((name) => checks.push({ name, status: 'skipped', detail: 'not checked: an earlier check failed' }));
  const now = deps.now ?? Date.now;

  let creds: Credentials;
  try {
    creds = await deps.resolve();
  } catch (err) {
    const e =
      err instanceof CardctlError
        ? err
        : new CardctlError(String((err as Error).message ?? err), { kind: 'unexpected' });
    checks.push({ name: 'credentials', status: 'fail', detail: e.message, hint: e.hint, kind: e.kind });
    skip('journal', 'reach', 'clock', 'key', 'mode', 'scopes');
    return { ok: false, profile: null, checks };
  }
  const secretSource =
    creds.source === 'env' ? 'environment' : creds.secretCommand !== undefined ? 'command' : 'profile';
  const profile = {
    name: creds.name,
    source: creds.source,
    mode: creds.mode,
    key_id: creds.keyId,
    base_url: creds.baseUrl,
    secret_source: secretSource,
  } as const;
  const from =
    creds.source === 'env'
      ? 'CARDCTL_API_KEY/CARDCTL_API_SECRET'
      : `profile "${creds.name}"${creds.source === 'default' ? ' (the default)' : creds.source === 'env-profile' ? ' (CARDCTL_PROFILE)' : ''}`;
  const secretFrom =
    creds.source === 'env'
      ? ''
      : creds.secretCommand !== undefined
        ? `; the secret from the command \`${creds.secretCommand}\``
        : '; the secret stored in the profile';
  checks.push({
    name: 'credentials',
    status: 'ok',
    detail: `${from}: ${creds.mode} key ${creds.keyId} at ${creds.baseUrl}${secretFrom}`,
  });
  if (deps.network) checks.push(deps.network(creds));

  try {
    // only what these credentials can replay is theirs to worry about; the others are counted, as information
    const { file: dir, mine, others, size } = await deps.unresolvedOps(creds);
    const file = size ? `${dir} (${size})` : dir;
    const n = (k: number) => `${k} money operation${k === 1 ? '' : 's'}`;
    const elsewhere =
      others > 0
        ? `; ${n(others)} with an unknown outcome sent with other credentials (not these: see \`cardctl ops list --unresolved\`)`
        : '';
    checks.push(
      mine === 0
        ? {
            name: 'journal',
            status: 'ok',
            detail: `${file}: no money operation with an unknown outcome for these credentials${elsewhere}`,
          }
        : {
            name: 'journal',
            status: 'warn',
            detail: `${file}: ${n(mine)} with an unknown outcome for these credentials${elsewhere}`,
            hint: 'See them with `cardctl ops list --unresolved`; learn their outcome with `cardctl ops replay ID`, or record what you learned with `cardctl ops resolve ID --outcome succeeded|failed`.',
          },
    );
  } catch (err) {
    const e = err instanceof CardctlError ? err : null;
    checks.push({
      name: 'journal',
      status: 'fail',
      detail: e?.message ?? `the journal cannot be read: ${(err as Error).message}`,
      hint:
        e?.hint ??
        'Money operations are refused until it can be written: point CARDCTL_STATE_DIR to a writable folder.',
      kind: e?.kind ?? 'unexpected',
    });
  }

  const client = deps.client(creds);
  // The first probe alone first: without an answer there is nothing more to learn (and no reason
  // to wait for five more timeouts). Its arrival time is the local side of the clock comparison.
  const first = await send(client, PROBES[0]!);
  const firstAt = now();
  const firstAnswer = answered(first);
  if (!firstAnswer) {
    checks.push({
      name: 'reach',
      status: 'fail',
      detail: first.err?.message ?? 'no answer',
      hint: first.err?.hint,
      kind: first.err?.kind ?? 'unavailable',
    });
    skip('clock', 'key', 'mode', 'scopes');
    return { ok: false, profile, checks };
  }
  const results: ProbeResult[] = [first];
  for (const probe of PROBES.slice(1)) results.push(await send(client, probe)); // one at a time: latency is per request
  const times = results
    .map(answered)
    .filter((r): r is ApiResponse => !!r)
    .map((r) => r.durationMs)
    .sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  checks.push({
    name: 'reach',
    status: 'ok',
    detail: `${creds.baseUrl} answered ${times.length} requests, median ${median} ms (slowest ${times[times.length - 1]} ms)`,
  });

  // The Date header has whole seconds: a skew of 1 s is noise. The gateway allows 300 s.
  const skew = clockSkewSeconds(header(firstAnswer.headers, 'date'), firstAt);
  if (skew === undefined)
    checks.push({
      name: 'clock',
      status: 'warn',
      detail: 'the server sent no Date header: the clock could not be compared',
      hint: 'Keep the clock synchronized (NTP): requests must be signed within 300 s of the server time.',
    });
  else if (Math.abs(skew) > 300)
    checks.push({
      name: 'clock',
      status: 'fail',
      detail: `the local clock is ${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} the server: every request is refused (timestamp_out_of_window)`,
      hint: 'Fix the clock (e.g. `timedatectl set-ntp true`).',
      kind: 'auth',
    });
  else if (Math.abs(skew) > 60)
    checks.push({
      name: 'clock',
      status: 'warn',
      detail: `the local clock is ${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} the server (the limit is 300 s)`,
      hint: 'Synchronize it (NTP) before it drifts past 300 s.',
    });
  else
    checks.push({
      name: 'clock',
      status: 'ok',
      detail: `within ${Math.max(1, Math.abs(skew))} s of the server (the limit is 300 s)`,
    });
  if (checks[checks.length - 1]!.status === 'fail') {
    skip('key', 'mode', 'scopes');
    return { ok: false, profile, checks };
  }

  const authFailure = results.find(
    (r) => r.err?.kind === 'auth' && r.err.code !== 'out_of_scope' && !liveOnlyRefusal(r),
  );
  if (authFailure?.err && authFailure.err.code !== 'ip_not_allowed') {
    checks.push({
      name: 'key',
      status: 'fail',
      detail: authFailure.err.message,
      hint: authFailure.err.hint,
      kind: 'auth',
    });
    skip('mode', 'scopes');
    return { ok: false, profile, checks };
  }
  if (authFailure?.err) {
    checks.push({
      name: 'key',
      status: 'fail',
      detail: `key ${creds.keyId} is valid, but this machine's address is not on its IP allowlist (ip_not_allowed)`,
      hint: authFailure.err.hint,
      kind: 'auth',
    });
    skip('mode', 'scopes');
    return { ok: false, profile, checks };
  }
  const remaining = header(firstAnswer.headers, 'x-ratelimit-remaining');
  const limit = header(firstAnswer.headers, 'x-ratelimit-limit');
  checks.push({
    name: 'key',
    status: 'ok',
    detail: `key ${creds.keyId} accepted: signature verified${limit ? `; rate limit ${remaining ?? '?'} of ${limit} left this minute` : ''}`,
  });

  // A test key is refused the live-only funding routes; a live key is not (either funding
  // probe tells, as long as the key holds its scope).
  const modeOf = (r: ProbeResult): 'test' | 'live' | undefined =>
    liveOnlyRefusal(r) ? 'test' : r.res || (r.err && r.err.kind === 'usage') ? 'live' : undefined;
  const funding = results.filter((r) => r.probe.scope.startsWith('deposits.'));
  const serverMode = funding.map(modeOf).find((m) => m !== undefined);
  if (!serverMode)
    checks.push({
      name: 'mode',
      status: 'warn',
      detail: `the key's mode could not be told: ${funding.map((r) => `${r.probe.scope} ${r.err?.message ?? answered(r)?.status}`).join('; ')}`,
      hint: 'Only a key holding deposits.read or deposits.write shows its mode here.',
    });
  else if (serverMode !== creds.mode) {
    const fix =
      creds.source === 'env'
        ? `set CARDCTL_MODE=${serverMode}`
        : `\`cardctl profiles add ${creds.name} --mode ${serverMode} --force ...\``;
    checks.push({
      name: 'mode',
      status: 'fail',
      detail: `the ${creds.source === 'env' ? 'environment' : 'profile'} says ${creds.mode} but the key is a ${serverMode} key`,
      hint: `Fix the mode: ${fix} (live money operations ask for confirmation only when the mode is right).`,
      kind: 'usage',
    });
  } else
    checks.push({
      name: 'mode',
      status: 'ok',
      detail: `a ${serverMode} key, as the ${creds.source === 'env' ? 'environment' : 'profile'} says`,
    });

  const missing = results.filter((r) => gatewayCode(r) === 'out_of_scope').map((r) => r.probe.scope);
  const unexpected = results.filter(
    (r) =>
      r.err &&
      r.err.code !== 'out_of_scope' &&
      !liveOnlyRefusal(r) &&
      r.err.kind !== 'not_found' &&
      r.err.kind !== 'usage',
  );
  const held = PROBES.map((p) => p.scope).filter((s) => !missing.includes(s));
  if (unexpected.length) {
    checks.push({
      name: 'scopes',
      status: 'warn',
      detail: `held: ${held.join(' ')}; unexpected answers: ${unexpected.map((r) => `${r.probe.scope} ${r.err!.message}`).join('; ')}`,
    });
  } else if (missing.length) {
    checks.push({
      name: 'scopes',
      status: 'warn',
      detail: `held: ${held.join(' ') || 'none'}; missing: ${missing.join(' ')}`,
      hint: 'Commands needing a missing scope answer 403 out_of_scope: use a key with those scopes (a key without scopes has all).',
    });
  } else {
    checks.push({ name: 'scopes', status: 'ok', detail: `all six: ${held.join(' ')}` });
  }
  return { ok: !checks.some((c) => c.status === 'fail'), profile, checks };
}

/** doctor with the real parts: the credential resolver, the journal, a client that does not retry. */
export async function doctor(opts: {
  profile?: string;
  verbose?: boolean;
  caFile?: string;
  timeout?: string;
  /** `--journal` (src/client/journal-db/target.ts) */
  journal?: string;
  env?: NodeJS.ProcessEnv;
  io: Io;
}): Promise<DoctorReport> {
  const env = opts.env ?? process.env;
  const [
    { resolveCredentials },
    { ApiClient },
    { Journal },
    { sentWith },
    { verboseLog },
    { closeAgent, configureTransport },
    { timeoutFromFlagOrEnv, chooseTimeoutMs },
    net,
  ] = await Promise.all([
    import('../profiles/resolve.js'),
    import('./client.js'),
    import('./journal.js'),
    import('./ops.js'),
    import('./verbose.js'),
    import('./http.js'),
    import('./timeout.js'),
    import('./network.js'),
  ]);
  const flagOrEnvTimeout = timeoutFromFlagOrEnv(opts.timeout, env); // a bad value: exit 2, nothing sent
  try {
    return await runDoctor({
      resolve: () => resolveCredentials({ profile: opts.profile, env }),
      // no retries (doctor reports what one request meets), and 10 s per probe unless --timeout, the environment or the profile says otherwise
      client: (credentials) =>
        new ApiClient({
          credentials,
          retries: 0,
          log: opts.verbose ? verboseLog(opts.io.stderr) : undefined,
          journal: null,
          timeoutMs: chooseTimeoutMs(flagOrEnvTimeout, credentials.timeout, DOCTOR_TIMEOUT_MS),
        }),
      network: (credentials) => {
        const route = net.describeRoute(credentials.baseUrl, env);
        const ca = net.chooseCaFile({
          flag: opts.caFile,
          profile: credentials.caFile,
          profileName: credentials.name,
          env,
        });
        try {
          configureTransport({ extraCa: ca ? net.readCaFile(ca) : undefined, env });
        } catch (err) {
          const e = err as CardctlError;
          return { name: 'network', status: 'fail', detail: `${route}; ${e.message}`, hint: e.hint, kind: 'usage' };
        }
        const extra = ca
          ? `; extra CA certificates from ${net.caFileNamed(ca)}`
          : env.NODE_EXTRA_CA_CERTS
            ? '; extra CA certificates from the file NODE_EXTRA_CA_CERTS names'
            : '';
        return { name: 'network', status: 'ok', detail: `${route}${extra}` };
      },
      unresolvedOps: async (credentials) => {
        const journal = Journal.open(env, (line) => opts.io.stderr.write(line + '\n'), { flag: opts.journal });
        const unknown = await journal.unresolved(); // an index of the unknown ones: not the whole journal
        const mine = unknown.filter((e) => sentWith(e, credentials)).length;
        const s = await journal.stats();
        const unreadable = s.unattributed ? `, ${s.unattributed} unreadable records (run \`cardctl ops verify\`)` : '';
        const check = await journal.check();
        const damaged =
          check.length === 1 && check[0] === 'ok' ? '' : `, DAMAGED (${check[0]}: run \`cardctl ops verify\`)`;
        const kind = journal.shared ? 'shared PostgreSQL journal, reachable' : 'local SQLite journal';
        const size = `${kind}, ${s.ops} operation${s.ops === 1 ? '' : 's'}, ${s.unresolved} unresolved, ${formatBytes(s.bytes)}${unreadable}${damaged}`;
        if (!journal.shared) probeStateFolder(dirname(journal.file), env); // readable is not enough: a money operation writes here first
        await journal.close();
        return { file: journal.file, mine, others: unknown.length - mine, size };
      },
    });
  } finally {
    await closeAgent();
  }
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1048576) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1048576).toFixed(1)} MiB`;
}
