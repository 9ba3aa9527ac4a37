// `cardctl smoke`: an end-to-end check of an integration on test (sandbox) keys, each step one
// case of a report (src/output/case-report.ts renders it). It refuses a live key before
// sending anything, sends at most MAX_REQUESTS requests (retries included; 429 and 503 are
// retried after their Retry-After), and leaves the card it issued frozen.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { CardctlError, usageError } from '../../errors.js';
import type { Credentials } from '../../profiles/types.js';
import { Harness, MAX_REQUESTS, RequestBudget, type SmokeCase } from './harness.js';
import { runSetup } from './setup.js';
import { runCards, runCustomers, runFunding, runSigning } from './flow.js';

export { MAX_REQUESTS, type SmokeCase } from './harness.js';

/** Every case, in the order of the report: one not run is listed as skipped, with why. */
export const CASES: ReadonlyArray<readonly [SmokeCase['group'], string]> = [
  ['setup', 'credentials'],
  ['setup', 'reach'],
  ['setup', 'clock'],
  ['setup', 'key'],
  ['setup', 'mode'],
  ['setup', 'scopes'],
  ['signing', 'wrong signature'],
  ['signing', 'nonce sent twice'],
  ['customers', 'create'],
  ['customers', 'get'],
  ['customers', 'list'],
  ['cards', 'issue'],
  ['cards', 'issue replayed'],
  ['cards', 'issue, another body'],
  ['cards', 'recharge 1'],
  ['cards', 'freeze'],
  ['cards', 'unfreeze'],
  ['cards', 'transactions'],
  ['cards', 'terminate'],
  ['cards', 'left frozen'],
  ['funding', 'deposit addresses refused'],
  ['funding', 'deposits refused'],
];

const caseIndex = (c: SmokeCase): number => CASES.findIndex(([g, n]) => g === c.group && n === c.name);

/** Adds a skipped row for every case of CASES not in `cases` yet (funding excepted: it needs nothing earlier). */
function skipMissing(cases: SmokeCase[], why: string, all = false): void {
  for (const [group, name] of CASES) {
    if ((group === 'funding' && !all) || cases.some((c) => c.group === group && c.name === name)) continue;
    cases.push({ group, name, status: 'skipped', expected: '-', got: `not run: ${why}`, time_ms: 0, requests: 0 });
  }
}

/** The report of a run whose credentials could not be resolved: that case failed, nothing else ran. */
export function credentialsFailed(err: CardctlError): SmokeReport {
  const cases: SmokeCase[] = [
    {
      group: 'setup',
      name: 'credentials',
      status: 'failed',
      expected: 'a test key, its secret and a base URL',
      got: err.hint ? `${err.message} ${err.hint}` : err.message,
      time_ms: 0,
      requests: 0,
      kind: err.kind,
    },
  ];
  skipMissing(cases, 'no credentials', true);
  return {
    suite: 'cardctl smoke',
    ok: false,
    profile: null,
    created: { customer_id: null, card_id: null, card_status: null },
    requests: 0,
    max_requests: MAX_REQUESTS,
    time_ms: 0,
    cases,
  };
}

/** The default product's minimum initial load on the mock; pass another with --amount. */
export const DEFAULT_AMOUNT_MINOR = 100;

export interface SmokeReport {
  suite: string;
  ok: boolean;
  /** null when the credentials could not be resolved */
  profile: { name: string; source: string; mode: string; key_id: string; base_url: string } | null;
  /** what the run created (a CI log shows it): the customer, and the card left frozen */
  created: { customer_id: string | null; card_id: string | null; card_status: string | null };
  requests: number;
  max_requests: number;
  time_ms: number;
  cases: SmokeCase[];
}

export interface SmokeOptions {
  amount?: number;
  /** `--timeout` as typed (seconds): src/client/timeout.ts */
  timeout?: string;
}

export interface SmokeDeps {
  credentials: Credentials;
  sleep?: (ms: number) => Promise<void>;
  timeoutMs?: number;
}

const defaultSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Refused before anything is sent: a live key, or an amount that is not a whole number of minor units. */
export function checkSmokeInput(creds: Credentials, opts: SmokeOptions): number {
  if (creds.mode === 'live') {
    throw usageError(
      `refusing to run the smoke test with a live key (${creds.source === 'env' ? 'CARDCTL_MODE=live' : `profile "${creds.name}"`}): it issues cards and moves money. Nothing was sent.`,
      'Use a test (sandbox) key: `cardctl smoke -p TEST_PROFILE`, or `cardctl smoke --mock`.',
    );
  }
  const amount = opts.amount ?? DEFAULT_AMOUNT_MINOR;
  if (!Number.isSafeInteger(amount) || amount < 0 || amount > 100_000_000)
    throw usageError(
      `--amount must be a whole number of minor units from 0 to 100000000, not ${opts.amount}.`,
      "Use your default product's minimum initial load.",
    );
  return amount;
}

export async function runSmoke(opts: SmokeOptions, deps: SmokeDeps): Promise<SmokeReport> {
  const creds = deps.credentials;
  const amount = checkSmokeInput(creds, opts);
  const started = performance.now();
  const budget = new RequestBudget(MAX_REQUESTS);
  const h = new Harness({ credentials: creds, budget, sleep: deps.sleep ?? defaultSleep, timeoutMs: deps.timeoutMs });
  const runId = randomUUID().slice(0, 8);
  const created: SmokeReport['created'] = { customer_id: null, card_id: null, card_status: null };
  if (!(await runSetup(h))) {
    skipMissing(h.cases, 'setup failed', true);
  } else {
    await runSigning(h);
    const customerId = await runCustomers(h, runId);
    created.customer_id = customerId ?? null;
    if (customerId) {
      const cards = await runCards(h, customerId, amount, runId);
      created.card_id = cards.cardId ?? null;
      created.card_status = cards.status ?? null;
    }
    skipMissing(h.cases, 'no customer was created');
    await runFunding(h);
  }
  h.cases.sort((x, y) => caseIndex(x) - caseIndex(y));
  return {
    suite: 'cardctl smoke',
    ok: !h.cases.some((c) => c.status === 'failed'),
    profile: { name: creds.name, source: creds.source, mode: creds.mode, key_id: creds.keyId, base_url: creds.baseUrl },
    created,
    requests: h.requestsUsed,
    max_requests: MAX_REQUESTS,
    time_ms: Math.round(performance.now() - started),
    cases: h.cases,
  };
}

/** smoke with the real parts: the credential resolver (-p, env, default profile) and the shared HTTP agent. */
export async function smoke(
  opts: SmokeOptions & { profile?: string; env?: NodeJS.ProcessEnv; credentials?: Credentials },
): Promise<SmokeReport> {
  const env = opts.env ?? process.env;
  const [{ resolveCredentials }, { closeAgent }, { timeoutFromFlagOrEnv }] = await Promise.all([
    import('../../profiles/resolve.js'),
    import('../http.js'),
    import('../timeout.js'),
  ]);
  const flagOrEnvTimeout = timeoutFromFlagOrEnv(opts.timeout, env); // a bad value: exit 2, nothing sent
  try {
    let credentials: Credentials;
    try {
      credentials = opts.credentials ?? (await resolveCredentials({ profile: opts.profile, env }));
    } catch (err) {
      // reported as the failed credentials case (a CI job gets its JUnit file); nothing was sent
      if (err instanceof CardctlError) return credentialsFailed(err);
      throw err;
    }
    // undefined: each probe's own default
    const timeoutMs =
      flagOrEnvTimeout ?? (credentials.timeout !== undefined ? Math.round(credentials.timeout * 1000) : undefined);
    return await runSmoke(opts, { credentials, timeoutMs });
  } finally {
    await closeAgent();
  }
}
