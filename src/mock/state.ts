// The whole mock state: one plain JSON-serializable object, so that persistence is a single
// atomic snapshot and a reset is a rebuild from the seed.
import { newId, newSecret, seededRandom, cryptoRandom, type RandomSource } from './random.js';
import type { OperationName } from '../contract/routes.js';

export type Mode = 'test' | 'live';
export const MODES: readonly Mode[] = ['test', 'live'];

export const CURRENCY = 'USD';
/** Decided: every network carries USDT, credited 1:1 to USD. */
export const NETWORK_ASSET = 'USDT';
export const DEPOSIT_RATE = '1.00';
export const TEST_WALLET_FUNDING_MINOR = 1_000_000_000;
export const DEFAULT_NETWORKS = ['bep20', 'erc20', 'trc20'];

export interface MerchantRec {
  id: string;
  webhook_secret: string;
  created_at: number;
}

export interface KeyRec {
  key_id: string;
  secret: string;
  /** the secret before the last roll, valid until previous_secret_until (simulated ms) */
  previous_secret: string | null;
  previous_secret_until: number | null;
  mode: Mode;
  merchant_id: string;
  scopes: string[];
  ip_allowlist: string[];
  revoked: boolean;
  /** simulated ms of the revocation (absent in older state files) */
  revoked_at?: number | null;
  /** simulated ms after which step 3 refuses the key; null or absent (older state files): never */
  expires_at?: number | null;
  created_at: number;
}

export interface WalletRec {
  merchant_id: string;
  mode: Mode;
  currency: string;
  balance_minor: number;
  fees_collected_minor: number;
  /** initial load + fee of cards still pending (202): taken from the balance, not yet spent */
  reserved_minor: number;
  initial_balance_minor: number;
  deposits_credited_minor: number;
}

export interface ProductRec {
  id: string;
  name: string;
  currency: string;
  min_initial_load_minor: number;
  issue_fee_minor: number;
  default: boolean;
  enabled: boolean;
  available: boolean;
}

export type KycStatus = 'unsubmitted' | 'pending' | 'approved' | 'rejected';

export interface CustomerRec {
  id: string;
  seq: number;
  merchant_id: string;
  /** the validated CustomerInput fields as stored (id_number kept, the image only as a flag) */
  fields: Record<string, unknown>;
  status: 'active' | 'disabled';
  kyc_status: KycStatus;
  kyc_failure_reason: string | null;
  kyc_submitted_at: number | null;
  kyc_resolved_at: number | null;
  /** simulated ms at which the automatic submission happens (create), null when none is planned */
  kyc_submit_due: number | null;
  /** simulated ms at which the pending verification gets its verdict */
  kyc_verdict_due: number | null;
  /** mode of the key behind the last submission: test verifies at once */
  kyc_mode: Mode;
  created_at: number;
}

export type CardStatus = 'pending' | 'active' | 'frozen' | 'terminated' | 'expired' | 'failed';

export interface CardRec {
  id: string;
  seq: number;
  merchant_id: string;
  mode: Mode;
  product_id: string;
  customer_id: string | null;
  status: CardStatus;
  masked_pan: string;
  last4: string;
  expiry: string;
  expires_at: number | null;
  currency: string;
  balance_minor: number;
  /** initial load and fee reserved while pending */
  pending_load_minor: number;
  pending_fee_minor: number;
  created_at: number;
}

export interface TransactionRec {
  id: string;
  seq: number;
  card_id: string;
  type: string;
  status: string;
  amount_minor: number;
  currency: string;
  occurred_at: number;
}

export interface AddressRec {
  id: string;
  merchant_id: string;
  network: string;
  asset: string;
  address: string;
  memo: string | null;
  created_at: number;
}

export interface DepositRec {
  id: string;
  seq: number;
  merchant_id: string;
  network: string;
  asset: string;
  asset_amount: string;
  credited_amount_minor: number;
  currency: string;
  rate: string;
  status: 'pending' | 'credited' | 'flagged';
  tx_id: string | null;
  confirmed_at: number | null;
  seen_at: number;
}

export interface EventRec {
  id: string;
  seq: number;
  merchant_id: string;
  mode: Mode;
  type: string;
  occurred_at: number;
  data: Record<string, unknown>;
}

export interface EndpointRec {
  id: string;
  merchant_id: string;
  url: string;
  created_at: number;
  /** simulated ms at which a dead delivery disabled it (spec: "on exhaustion"); absent or null while enabled */
  disabled_at?: number | null;
}

export interface DeliveryAttemptRec {
  /** simulated ms when sent */
  at: number;
  /** real ms when sent (the signature's `t`) */
  sent_at: number;
  status: number | null;
  error: string | null;
  duration_ms: number;
}

export interface DeliveryRec {
  id: string;
  seq: number;
  event_id: string;
  endpoint_id: string;
  merchant_id: string;
  type: string;
  /** the exact body sent by every attempt */
  body: string;
  attempts: DeliveryAttemptRec[];
  state: 'pending' | 'succeeded' | 'dead';
  /** simulated ms; null once succeeded or dead */
  next_attempt_at: number | null;
  created_at: number;
}

export interface StoredReply {
  status: number;
  body: unknown;
}

export interface IdempotencyRec {
  fingerprint: string;
  path: string;
  created_at: number;
  expires_at: number;
  /** null while in flight (never persisted in that state) */
  reply: StoredReply | null;
  /** an issue answered 202: replays read the card's current state */
  async_card_id?: string;
  /** the request that stored this key: its id in the request log and its real time (absent when the log is off) */
  request_seq?: number;
  request_at?: number;
}

export type FaultOperation = 'issue' | 'recharge' | 'terminate' | 'any' | OperationName;
export type FaultKind = '503' | '500' | '500_after_commit' | 'drop' | 'slow' | 'async_202' | 'issue_failed';

export interface FaultRec {
  id: string;
  operation: FaultOperation;
  kind: FaultKind;
  count: number;
  remaining: number;
  /** `slow`: the delay before answering, in real ms */
  ms?: number;
  merchant_id: string | null;
  created_at: number;
}

export interface MockState {
  version: 1;
  seed: number;
  clock_offset_ms: number;
  seq: number;
  default_merchant_id: string;
  /** the seeded merchant's keys as the banner shows them (stable even after a revoke) */
  banner_keys?: { test: string; live: string };
  merchants: Record<string, MerchantRec>;
  keys: Record<string, KeyRec>;
  wallets: Record<string, WalletRec>;
  products: ProductRec[];
  customers: Record<string, CustomerRec>;
  cards: Record<string, CardRec>;
  transactions: Record<string, TransactionRec[]>;
  addresses: Record<string, AddressRec>;
  deposits: Record<string, DepositRec>;
  events: EventRec[];
  endpoints: Record<string, EndpointRec>;
  /** webhook deliveries (webhooks.ts); optional because older state files lack it */
  deliveries?: Record<string, DeliveryRec>;
  idempotency: Record<string, IdempotencyRec>;
  faults: FaultRec[];
  networks: string[];
  /** every network ever enabled: a POST for one of these that is now off is `not_enabled`, not a validation error */
  known_networks: string[];
  withdrawals: number;
}

export interface PreloadedKey {
  keyId: string;
  secret: string;
  mode: Mode;
  merchantId?: string;
  scopes?: string[];
  ipAllowlist?: string[];
}

export const walletKey = (merchantId: string, mode: Mode): string => `${merchantId}:${mode}`;

export function nextSeq(state: MockState): number {
  state.seq += 1;
  return state.seq;
}

export function addKey(
  state: MockState,
  rand: RandomSource,
  now: number,
  input: {
    merchant_id: string;
    mode: Mode;
    scopes?: string[];
    ip_allowlist?: string[];
    key_id?: string;
    secret?: string;
    expires_at?: number | null;
  },
): KeyRec {
  const key: KeyRec = {
    key_id: input.key_id ?? newId(rand, now),
    secret: input.secret ?? newSecret(rand),
    previous_secret: null,
    previous_secret_until: null,
    mode: input.mode,
    merchant_id: input.merchant_id,
    scopes: [...(input.scopes ?? [])],
    ip_allowlist: [...(input.ip_allowlist ?? [])],
    revoked: false,
    expires_at: input.expires_at ?? null,
    created_at: now,
  };
  state.keys[key.key_id] = key;
  return key;
}

/** A merchant with its wallets (test pre-funded), one test and one live key, and a webhook secret. */
export function addMerchant(
  state: MockState,
  rand: RandomSource,
  now: number,
): { merchant: MerchantRec; test: KeyRec; live: KeyRec } {
  const merchant = addMerchantRecord(state, rand, now);
  const test = addKey(state, rand, now, { merchant_id: merchant.id, mode: 'test' });
  const live = addKey(state, rand, now, { merchant_id: merchant.id, mode: 'live' });
  return { merchant, test, live };
}

/** A merchant and its two wallets, without keys. */
export function addMerchantRecord(state: MockState, rand: RandomSource, now: number, id?: string): MerchantRec {
  const merchant: MerchantRec = {
    id: id ?? newId(rand, now),
    webhook_secret: 'whsec_' + newSecret(rand),
    created_at: now,
  };
  state.merchants[merchant.id] = merchant;
  for (const mode of MODES) {
    const initial = mode === 'test' ? TEST_WALLET_FUNDING_MINOR : 0;
    state.wallets[walletKey(merchant.id, mode)] = {
      merchant_id: merchant.id,
      mode,
      currency: CURRENCY,
      balance_minor: initial,
      fees_collected_minor: 0,
      reserved_minor: 0,
      initial_balance_minor: initial,
      deposits_credited_minor: 0,
    };
  }
  return merchant;
}

/** Fixed time for the ids of the seeded start, so that a seed alone decides them. */
const SEEDED_EPOCH_MS = Date.UTC(2025, 0, 1);

export interface SeededStart {
  state: MockState;
  testKey: KeyRec;
  liveKey: KeyRec;
}

/** The seeded start: one merchant, its two keys, four products, default networks, funded test wallet. */
export function buildSeededState(seed: number, now: number, preload: PreloadedKey[] = []): SeededStart {
  const rand = seededRandom(seed);
  const state: MockState = {
    version: 1,
    seed,
    clock_offset_ms: 0,
    seq: 0,
    default_merchant_id: '',
    merchants: {},
    keys: {},
    wallets: {},
    products: [],
    customers: {},
    cards: {},
    transactions: {},
    addresses: {},
    deposits: {},
    events: [],
    endpoints: {},
    deliveries: {},
    idempotency: {},
    faults: [],
    networks: [...DEFAULT_NETWORKS],
    known_networks: [...DEFAULT_NETWORKS],
    withdrawals: 0,
  };
  const { merchant, test, live } = addMerchant(state, rand, SEEDED_EPOCH_MS);
  for (const k of [...Object.values(state.keys)]) k.created_at = now;
  merchant.created_at = now;
  state.default_merchant_id = merchant.id;
  state.banner_keys = { test: test.key_id, live: live.key_id };
  const product = (name: string, min: number, fee: number, flags: Partial<ProductRec>): ProductRec => ({
    id: newId(rand, SEEDED_EPOCH_MS),
    name,
    currency: CURRENCY,
    min_initial_load_minor: min,
    issue_fee_minor: fee,
    default: false,
    enabled: true,
    available: true,
    ...flags,
  });
  state.products = [
    product('Virtual USD Card', 100, 200, { default: true }),
    product('Premium Virtual USD Card', 5_000, 500, {}),
    product('Physical USD Card (not enabled)', 2_000, 1_500, { enabled: false }),
    product('Travel USD Card (no issuer route)', 1_000, 300, { available: false }),
  ];
  for (const k of preload) {
    const merchantId = k.merchantId ?? merchant.id;
    if (!state.merchants[merchantId]) addMerchantRecord(state, cryptoRandom, now, merchantId);
    addKey(state, cryptoRandom, now, {
      merchant_id: merchantId,
      mode: k.mode,
      scopes: k.scopes,
      ip_allowlist: k.ipAllowlist,
      key_id: k.keyId,
      secret: k.secret,
    });
  }
  return { state, testKey: test, liveKey: live };
}

/** Seeded merchant's keys, as the banner shows them. */
export function defaultKeys(state: MockState): { test: KeyRec; live: KeyRec } {
  const b = state.banner_keys;
  if (b && state.keys[b.test] && state.keys[b.live]) return { test: state.keys[b.test]!, live: state.keys[b.live]! };
  const mine = Object.values(state.keys).filter((k) => k.merchant_id === state.default_merchant_id);
  const first = (mode: Mode): KeyRec =>
    (mine.find((k) => k.mode === mode && !k.revoked) ?? mine.find((k) => k.mode === mode))!;
  return { test: first('test'), live: first('live') };
}
