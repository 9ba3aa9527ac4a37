// What every section of the tour gets (src/demo/sections/): the step runner, the mock, the
// scratch folder, the mock's books, and the ids earlier sections created.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JournalOffer } from './postgres.js';
import { keyValues, type CliRun, type Runner } from './runner.js';

export interface WalletRow {
  merchant_id: string;
  mode: 'test' | 'live';
  balance_minor: number;
  cards_balance_minor: number;
  fees_collected_minor: number;
  reserved_minor: number;
  initial_balance_minor: number;
  deposits_credited_minor: number;
}

export interface TourMock {
  baseUrl: string;
  merchantId: string;
  keys: { test: { keyId: string; secret: string }; live: { keyId: string; secret: string } };
  webhookSecret: string;
  products: Array<{ id: string; default: boolean; issue_fee_minor: number }>;
}

/** Ids an earlier section created, for the sections after it ('' until then). */
export interface TourIds {
  /** the approved customer (Ada Lovelace), from "Customers"; profiles `test` and `live` exist from "Profiles" */
  customer: string;
  /** the first card, issued then terminated in "Cards" (its card.issued event is used by "Webhooks") */
  card: string;
}

export interface TourContext {
  r: Runner;
  mock: TourMock;
  /** the scratch folder the children run in (data files live here) */
  files: string;
  /** a control-plane call of the mock, answered `data` */
  control: (method: string, path: string, body?: unknown) => Promise<any>;
  /** writes a data file into the scratch folder, for `--data @NAME` / `--from NAME` */
  write: (name: string, text: string) => void;
  /** the merchant's wallet on the mock, as its books say */
  wallet: (mode: 'test' | 'live') => Promise<WalletRow>;
  /** how many customers and cards the mock holds */
  counts: () => Promise<{ customers: number; cards: number }>;
  /** the default product's issue fee, in minor units */
  fee: number;
  ids: TourIds;
  /**
   * A PostgreSQL for a shared journal (src/demo/postgres.ts): a new database on a server of the
   * user's (CARDCTL_DEMO_JOURNAL_URL) or on a throwaway server the demo starts, undone when the
   * demo ends; or why there is none here (the section then skips, saying so in one line).
   */
  sharedJournal: () => Promise<JournalOffer>;
}

/** One section of the tour: a heading, then its steps. */
export interface Section {
  /** the heading, "Topic: what it shows" */
  title: string;
  run: (ctx: TourContext) => Promise<void>;
}

export function tourContext(
  base: Pick<TourContext, 'r' | 'mock' | 'files' | 'control' | 'sharedJournal'>,
): TourContext {
  const { mock, control } = base;
  return {
    ...base,
    write: (name, text) => writeFileSync(join(base.files, name), text),
    wallet: async (mode) => {
      const rows = (await control('GET', '/wallets')) as WalletRow[];
      const row = rows.find((w) => w.merchant_id === mock.merchantId && w.mode === mode);
      if (!row) throw new Error(`the mock has no ${mode} wallet`);
      return row;
    },
    counts: async () => (await control('GET', '/state')) as { customers: number; cards: number },
    fee: mock.products.find((p) => p.default)?.issue_fee_minor ?? 0,
    ids: { customer: '', card: '' },
  };
}

export interface Card {
  id: string;
  status: string;
  mode: string;
  balance_minor: number;
}

export interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  state: string;
  attempts: Array<{ status: number | null }>;
}

/** `cards issue` for the approved customer, 5000 minor units (add a key, a profile, --wait ...). */
export function issueArgv(ids: TourIds): string[] {
  return ['cards', 'issue', '--customer', ids.customer, '--amount', '5000'];
}

/** The card a `cards ...` command printed (its `key  value` block). */
export function card(run: { stdout: string }): Card {
  const f = keyValues(run.stdout);
  return { id: f.id ?? '', status: f.status ?? '', mode: f.mode ?? '', balance_minor: Number(f.balance_minor) };
}

/** The NDJSON lines of `webhooks listen --json` after its `{"listening"}` line. */
export function deliveries(run: CliRun): Array<{
  delivery_id: string;
  valid: boolean;
  reason: string;
  type: string | null;
  data: Record<string, unknown> | null;
}> {
  return run.stdout
    .split('\n')
    .filter((l) => l.startsWith('{') && !l.startsWith('{"listening"'))
    .map((l) => JSON.parse(l));
}
