// `cardctl smoke`: an end-to-end check of an integration on test (sandbox) keys, each step one
// case of a report (src/output/case-report.ts renders it). It refuses a live key before
// sending anything, sends at most MAX_REQUESTS requests (retries included; 429 and 503 are
// retried after their Retry-After), and leaves the card it issued frozen.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { usageError } from '../../errors.js';
import type { Credentials } from '../../profiles/types.js';
import { Harness, MAX_REQUESTS, RequestBudget, type SmokeCase } from './harness.js';
import { runSetup } from './setup.js';
import { runCards, runCustomers, runFunding, runSigning } from './flow.js';

export { MAX_REQUESTS, type SmokeCase } from './harness.js';

/** The default product's minimum initial load on the mock; pass another with --amount. */
export const DEFAULT_AMOUNT_MINOR = 100;

export interface SmokeReport {
  suite: string;
  ok: boolean;
  profile: { name: string; source: string; mode: string; key_id: string; base_url: string };
  /** what the run created (a CI log shows it): the customer, and the card left frozen */
  created: { customer_id: string | null; card_id: string | null; card_status: string | null };
  requests: number;
  max_requests: number;
  time_ms: number;
  cases: SmokeCase[];
}

export interface SmokeOptions {
  amount?: number;
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
    throw usageError(`refusing to run the smoke test with a live key (${creds.source === 'env' ? 'CARDCTL_MODE=live' : `profile "${creds.name}"`}): it issues cards and moves money. Nothing was sent.`, 'Use a test (sandbox) key: `cardctl smoke -p TEST_PROFILE`, or `cardctl smoke --mock`.');
  }
  const amount = opts.amount ?? DEFAULT_AMOUNT_MINOR;
  if (!Number.isSafeInteger(amount) || amount < 0 || amount > 100_000_000) throw usageError(`--amount must be a whole number of minor units from 0 to 100000000, not ${opts.amount}.`, "Use your default product's minimum initial load.");
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
  const later: Array<[SmokeCase['group'], string]> = [
    ['signing', 'wrong signature'], ['signing', 'nonce sent twice'], ['customers', 'create'], ['customers', 'get'], ['customers', 'list'],
    ['cards', 'issue'], ['funding', 'deposit addresses refused'], ['funding', 'deposits refused'],
  ];
  if (!(await runSetup(h))) {
    for (const [group, name] of later) h.skip(group, name, '-', 'setup failed');
  } else {
    await runSigning(h);
    const customerId = await runCustomers(h, runId);
    created.customer_id = customerId ?? null;
    if (customerId) {
      const cards = await runCards(h, customerId, amount, runId);
      created.card_id = cards.cardId ?? null;
      created.card_status = cards.status ?? null;
    } else {
      h.skip('cards', 'issue', '-', 'no customer was created');
    }
    await runFunding(h);
  }
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
export async function smoke(opts: SmokeOptions & { profile?: string; env?: NodeJS.ProcessEnv; credentials?: Credentials }): Promise<SmokeReport> {
  const env = opts.env ?? process.env;
  const [{ resolveCredentials }, { closeAgent }, { timeoutFromEnv }] = await Promise.all([import('../../profiles/resolve.js'), import('../http.js'), import('../session.js')]);
  try {
    const credentials = opts.credentials ?? (await resolveCredentials({ profile: opts.profile, env }));
    return await runSmoke(opts, { credentials, timeoutMs: timeoutFromEnv(env) });
  } finally {
    await closeAgent();
  }
}
