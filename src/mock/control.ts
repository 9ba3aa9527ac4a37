// The control plane under /_mock: JSON, behind the bearer token, answering in the API's
// envelopes. One function per call of the interface table.
import { safeEqual } from '../signing/compare.js';
import { SCOPES } from '../contract/routes.js';
import { EVENT_TYPES, TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../contract/resources.js';
import { codeError, endpointNotFound, fail, ok, validation, type ErrorMap, type Reply } from './envelope.js';
import { parseJsonObject } from './context.js';
import { isReply } from './pagination.js';
import { DAY, isoOrNull, isoTime } from './clock.js';
import { eventView } from './events.js';
import { FAULT_KINDS, FAULT_OPERATIONS } from './faults.js';
import { parseAllowEntry } from './allowlist.js';
import { newId, newSecret, randomHex, cryptoRandom } from './random.js';
import { addKey, addMerchant, nextSeq, MODES, CURRENCY, type DepositRec, type FaultKind, type FaultOperation, type FaultRec, type KeyRec, type Mode, type TransactionRec } from './state.js';
import { cardView, customerView, depositView, transactionView } from './views.js';
import { decide, settleCustomer } from './kyc.js';
import { finishProvisioning, settleCard } from './handlers/cards.js';
import { NETWORK_ASSET, DEPOSIT_RATE } from './handlers/deposits.js';
import type { Runtime } from './runtime.js';
import { deliveryManagers, endpointView, isLoopbackHost, isNonPublicName, isReservedAddress, removeEndpoint } from './webhooks.js';
import { isIP } from 'node:net';

/** The bearer token is compared in constant time; set by startMock. */
export const controlTokens = new WeakMap<Runtime, string>();

export const ROLL_OVERLAP_MS = DAY;
const MAX_ADVANCE_SECONDS = 20 * 365 * 24 * 3600;
/** Decided: the simulated clock never passes 9999-12-31T23:59:59Z (ULIDs and four-digit years end there). */
export const MAX_SIMULATED_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

type Body = Record<string, unknown>;
interface ControlRequest {
  rt: Runtime;
  body: Body;
  query: URLSearchParams;
  params: string[];
}
type ControlHandler = (r: ControlRequest) => Reply | Promise<Reply>;

const notFoundThing = (what: string): Reply => fail(404, `${what} not found.`);

// ---- small input readers: each returns the value or records a human message ----

class Input {
  readonly errors: ErrorMap = {};
  constructor(private readonly body: Body) {}

  private add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }

  has(field: string): boolean {
    return this.body[field] !== undefined && this.body[field] !== null;
  }

  oneOf<T extends string>(field: string, values: readonly T[], fallback?: T): T | undefined {
    const v = this.body[field];
    if (v === undefined || v === null) {
      if (fallback === undefined) this.add(field, `The ${field} is required: one of ${values.join(', ')}.`);
      return fallback;
    }
    const s = typeof v === 'number' ? String(v) : v;
    if (typeof s !== 'string' || !(values as readonly string[]).includes(s)) {
      this.add(field, `The ${field} must be one of ${values.join(', ')}.`);
      return undefined;
    }
    return s as T;
  }

  integer(field: string, min: number, max: number, fallback?: number): number | undefined {
    const v = this.body[field];
    if (v === undefined || v === null) {
      if (fallback === undefined) this.add(field, `The ${field} is required.`);
      return fallback;
    }
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) {
      this.add(field, `The ${field} must be an integer from ${min} to ${max}.`);
      return undefined;
    }
    return v;
  }

  string(field: string, pattern: RegExp, hint: string, optional = false): string | undefined {
    const v = this.body[field];
    if (v === undefined || v === null) {
      if (!optional) this.add(field, `The ${field} is required.`);
      return undefined;
    }
    if (typeof v !== 'string' || !pattern.test(v)) {
      this.add(field, `The ${field} ${hint}`);
      return undefined;
    }
    return v;
  }

  stringList(field: string, check: (s: string) => boolean, hint: string): string[] | undefined {
    const v = this.body[field];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v) || v.length > 100 || !v.every((s) => typeof s === 'string' && check(s))) {
      this.add(field, `The ${field} ${hint}`);
      return undefined;
    }
    return v as string[];
  }

  fail(): Reply | null {
    return Object.keys(this.errors).length ? validation(this.errors) : null;
  }
}

function merchantOf(rt: Runtime, body: Body): string | Reply {
  const id = body.merchant_id;
  if (id === undefined || id === null) return rt.state.default_merchant_id;
  if (typeof id !== 'string') return validation({ merchant_id: ['The merchant_id must be a string.'] });
  return Object.hasOwn(rt.state.merchants, id) ? id : notFoundThing('Merchant');
}

function keyOf(rt: Runtime, id: string): KeyRec | Reply {
  const key = Object.hasOwn(rt.state.keys, id) ? rt.state.keys[id] : undefined;
  if (!key) return notFoundThing('Key');
  if (key.revoked) return fail(422, 'The key is revoked.', { key: ['revoked'] });
  return key;
}

const keyView = (k: KeyRec) => ({
  key_id: k.key_id,
  secret: k.secret,
  mode: k.mode,
  merchant_id: k.merchant_id,
  scopes: k.scopes,
  ip_allowlist: k.ip_allowlist,
  expires_at: isoOrNull(k.expires_at),
});

// ---- the calls ----

function summary(rt: Runtime): Record<string, unknown> {
  const s = rt.state;
  const count = (o: object) => Object.keys(o).length;
  return {
    merchants: count(s.merchants),
    keys: count(s.keys),
    customers: count(s.customers),
    cards: count(s.cards),
    transactions: Object.values(s.transactions).reduce((n, list) => n + list.length, 0),
    deposit_addresses: count(s.addresses),
    deposits: count(s.deposits),
    events: s.events.length,
    webhook_endpoints: count(s.endpoints),
    webhook_deliveries: count(s.deliveries ?? {}),
    idempotency_keys: count(s.idempotency),
    faults: s.faults.length,
    withdrawals: s.withdrawals,
    networks: s.networks,
    seed: s.seed,
    clock: rt.clock.view(),
  };
}

function wallets(rt: Runtime): Reply {
  const cardsBalance = new Map<string, number>();
  for (const c of Object.values(rt.state.cards)) {
    const k = `${c.merchant_id}:${c.mode}`;
    cardsBalance.set(k, (cardsBalance.get(k) ?? 0) + c.balance_minor);
  }
  return ok(
    Object.entries(rt.state.wallets).map(([k, w]) => ({
      merchant_id: w.merchant_id,
      mode: w.mode,
      currency: w.currency,
      balance_minor: w.balance_minor,
      cards_balance_minor: cardsBalance.get(k) ?? 0,
      fees_collected_minor: w.fees_collected_minor,
      reserved_minor: w.reserved_minor,
      initial_balance_minor: w.initial_balance_minor,
      deposits_credited_minor: w.deposits_credited_minor,
    })),
  );
}

function createKey({ rt, body }: ControlRequest): Reply {
  const input = new Input(body);
  const mode = input.oneOf<Mode>('mode', MODES);
  const scopes = input.stringList('scopes', (s) => (SCOPES as readonly string[]).includes(s), `must be a list of scopes among ${SCOPES.join(', ')}.`);
  const allow = input.stringList('ip_allowlist', (s) => parseAllowEntry(s) !== null, 'must be a list of IPv4 or IPv6 addresses or CIDR ranges.');
  // optional: the key stops working (401 invalid_api_key) this many simulated seconds from now
  const expiresIn = input.has('expires_in_seconds') ? input.integer('expires_in_seconds', 1, MAX_ADVANCE_SECONDS) : undefined;
  const bad = input.fail();
  if (bad) return bad;
  const merchant = merchantOf(rt, body);
  if (isReply(merchant)) return merchant;
  const now = rt.now();
  const expiresAt = expiresIn === undefined ? null : now + expiresIn * 1000;
  const key = addKey(rt.state, cryptoRandom, now, { merchant_id: merchant, mode: mode!, scopes, ip_allowlist: allow, expires_at: expiresAt });
  rt.markDirty();
  return ok(keyView(key), 201);
}

function rollKey({ rt, params }: ControlRequest): Reply {
  const key = keyOf(rt, params[0]!);
  if (isReply(key)) return key;
  key.previous_secret = key.secret;
  key.previous_secret_until = rt.now() + ROLL_OVERLAP_MS;
  key.secret = newSecret(cryptoRandom);
  rt.markDirty();
  return ok({ key_id: key.key_id, secret: key.secret });
}

function rotateKey({ rt, params }: ControlRequest): Reply {
  const old = keyOf(rt, params[0]!);
  if (isReply(old)) return old;
  const key = addKey(rt.state, cryptoRandom, rt.now(), { merchant_id: old.merchant_id, mode: old.mode, scopes: old.scopes, ip_allowlist: old.ip_allowlist });
  rt.markDirty();
  return ok(keyView(key), 201);
}

function revokeKey({ rt, params }: ControlRequest): Reply {
  const key = Object.hasOwn(rt.state.keys, params[0]!) ? rt.state.keys[params[0]!] : undefined;
  if (!key) return notFoundThing('Key');
  key.revoked = true;
  rt.markDirty();
  return ok({ key_id: key.key_id, revoked: true });
}

async function advanceClock({ rt, body }: ControlRequest): Promise<Reply> {
  const v = body.seconds;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > MAX_ADVANCE_SECONDS) {
    return validation({ seconds: [`The seconds must be a number from 0 to ${MAX_ADVANCE_SECONDS} (the clock only moves forward).`] });
  }
  // ids (ULIDs) and ISO dates need a four-digit year: the simulated now stops at the end of 9999
  const room = Math.floor((MAX_SIMULATED_MS - rt.now()) / 1000);
  if (rt.now() + Math.round(v * 1000) > MAX_SIMULATED_MS) {
    return validation({ seconds: [`The clock cannot move past ${isoTime(MAX_SIMULATED_MS)}: at most ${Math.max(0, room)} more seconds.`] });
  }
  rt.clock.advance(v);
  rt.state.clock_offset_ms = rt.clock.offsetMs;
  rt.markDirty();
  // webhook attempts that fell due start in runDue; answer once they finished (bounded wait)
  await rt.awaitDue(() => rt.runDue());
  return ok(rt.clock.view());
}

function forceKyc({ rt, body, params }: ControlRequest): Reply {
  const input = new Input(body);
  const verdict = input.oneOf('verdict', ['approved', 'rejected'] as const);
  const reason = input.string('reason', /^[\w .:-]{1,100}$/, 'must be a short label (letters, digits, _ . : -), at most 100 characters.', true);
  const bad = input.fail();
  if (bad) return bad;
  const c = Object.hasOwn(rt.state.customers, params[0]!) ? rt.state.customers[params[0]!] : undefined;
  if (!c) return notFoundThing('Customer');
  settleCustomer(rt, c);
  decide(rt, c, verdict!, reason);
  return ok(customerView(c));
}

function provision({ rt, body, params }: ControlRequest): Reply {
  const input = new Input(body);
  const outcome = input.oneOf('outcome', ['active', 'failed'] as const);
  const bad = input.fail();
  if (bad) return bad;
  const card = Object.hasOwn(rt.state.cards, params[0]!) ? rt.state.cards[params[0]!] : undefined;
  if (!card) return notFoundThing('Card');
  if (card.status !== 'pending') return codeError('invalid_state');
  finishProvisioning(rt, card, outcome!);
  return ok(cardView(card));
}

function addTransaction({ rt, body, params }: ControlRequest): Reply {
  const input = new Input(body);
  const type = input.oneOf('type', TRANSACTION_TYPES);
  const status = input.oneOf('status', TRANSACTION_STATUSES);
  const amount = input.integer('amount_minor', 1, Number.MAX_SAFE_INTEGER);
  const currency = input.string('currency', /^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD.', true);
  let occurred: number | undefined;
  if (input.has('occurred_at')) {
    const t = typeof body.occurred_at === 'string' ? Date.parse(body.occurred_at) : NaN;
    if (Number.isNaN(t)) validationAdd(input, 'occurred_at', 'The occurred_at must be an ISO 8601 date-time.');
    else occurred = t;
  }
  const bad = input.fail();
  if (bad) return bad;
  const card = Object.hasOwn(rt.state.cards, params[0]!) ? rt.state.cards[params[0]!] : undefined;
  if (!card) return notFoundThing('Card');
  settleCard(rt, card);
  const now = rt.now();
  // issuer-reported activity: recorded for the list, balances are the wallet's business
  const tx: TransactionRec = {
    id: newId(cryptoRandom, now),
    seq: nextSeq(rt.state),
    card_id: card.id,
    type: type!,
    status: status!,
    amount_minor: amount!,
    currency: currency ?? card.currency,
    occurred_at: occurred ?? now,
  };
  (rt.state.transactions[card.id] ??= []).push(tx);
  rt.markDirty();
  return ok(transactionView(tx), 201);
}

function validationAdd(input: Input, field: string, message: string): void {
  (input.errors[field] ??= []).push(message);
}

/** "12.345" -> 1234 minor units at the 1:1 rate (truncated, never rounded up). */
function toMinor(assetAmount: string): number {
  const [int, frac = ''] = assetAmount.split('.');
  return Number(int) * 100 + Number((frac + '00').slice(0, 2));
}

function addDeposit({ rt, body }: ControlRequest): Reply {
  const input = new Input(body);
  const network = input.string('network', /^[a-z0-9_-]{1,32}$/, 'must be a network name such as trc20.');
  const amount = input.string('asset_amount', /^\d{1,12}(\.\d{1,18})?$/, 'must be a positive decimal string such as "100.50".');
  const status = input.oneOf('status', ['pending', 'credited', 'flagged'] as const, 'credited');
  if (amount !== undefined && toMinor(amount) <= 0 && !/[1-9]/.test(amount)) validationAdd(input, 'asset_amount', 'The asset_amount must be greater than zero.');
  const bad = input.fail();
  if (bad) return bad;
  const merchant = merchantOf(rt, body);
  if (isReply(merchant)) return merchant;
  const now = rt.now();
  const credited = status === 'pending' ? 0 : toMinor(amount!);
  const deposit: DepositRec = {
    id: newId(cryptoRandom, now),
    seq: nextSeq(rt.state),
    merchant_id: merchant,
    network: network!,
    asset: NETWORK_ASSET,
    asset_amount: amount!,
    credited_amount_minor: credited,
    currency: CURRENCY,
    rate: DEPOSIT_RATE,
    status: status!,
    tx_id: (network === 'trc20' ? '' : '0x') + randomHex(cryptoRandom, 32),
    confirmed_at: status === 'pending' ? null : now,
    seen_at: now,
  };
  rt.state.deposits[deposit.id] = deposit;
  if (status !== 'pending') {
    // credited and flagged deposits are both in the wallet (flagged: marked for review)
    const wallet = rt.wallet(merchant, 'live');
    wallet.balance_minor += credited;
    wallet.deposits_credited_minor += credited;
    rt.events.record(merchant, 'live', 'deposit.credited', { deposit_id: deposit.id, credited_amount_minor: credited });
  }
  rt.markDirty();
  return ok(depositView(deposit), 201);
}

const WITHDRAWAL_PATHS: Record<string, string[]> = {
  completed: ['withdrawal.requested', 'withdrawal.approved', 'withdrawal.completed'],
  rejected: ['withdrawal.requested', 'withdrawal.rejected'],
  failed: ['withdrawal.requested', 'withdrawal.approved', 'withdrawal.failed'],
  cancelled: ['withdrawal.requested', 'withdrawal.cancelled'],
};

function addWithdrawal({ rt, body }: ControlRequest): Reply {
  const input = new Input(body);
  const amount = input.integer('amount_minor', 1, Number.MAX_SAFE_INTEGER);
  const fee = input.integer('fee_minor', 0, Number.MAX_SAFE_INTEGER, 0);
  const outcome = input.oneOf('outcome', Object.keys(WITHDRAWAL_PATHS));
  if (amount !== undefined && fee !== undefined && fee > amount) validationAdd(input, 'fee_minor', 'The fee_minor must not exceed amount_minor.');
  const bad = input.fail();
  if (bad) return bad;
  const merchant = merchantOf(rt, body);
  if (isReply(merchant)) return merchant;
  const id = newId(cryptoRandom, rt.now());
  const types = WITHDRAWAL_PATHS[outcome!]!;
  for (const type of types) {
    const data: Record<string, unknown> = { withdrawal_id: id, amount_minor: amount };
    if (type === 'withdrawal.requested') data.fee_minor = fee;
    if (type === 'withdrawal.completed') Object.assign(data, { fee_minor: fee, net_amount_minor: amount! - fee! });
    rt.events.record(merchant, 'live', type, data);
  }
  rt.state.withdrawals += 1;
  rt.markDirty();
  return ok({ withdrawal_id: id, events: types }, 201);
}

function setNetworks({ rt, body }: ControlRequest): Reply {
  const input = new Input(body);
  const list = input.stringList('enabled', (s) => /^[a-z0-9_-]{1,32}$/.test(s), 'must be a list of network names such as trc20.');
  if (list === undefined && !input.errors.enabled) validationAdd(input, 'enabled', 'The enabled list is required (it may be empty).');
  const bad = input.fail();
  if (bad) return bad;
  const enabled = [...new Set(list!)].sort();
  rt.state.networks = enabled;
  rt.state.known_networks = [...new Set([...rt.state.known_networks, ...enabled])].sort();
  rt.markDirty();
  return ok({ enabled });
}

/**
 * Product switches (the platform's configuration, same for every merchant): `default`,
 * `enabled`, `available`. Making one the default clears it on the others; clearing the default
 * of every product is how `product: [no_default]` is reached.
 */
function patchProduct({ rt, params, body }: ControlRequest): Reply {
  const product = rt.state.products.find((p) => p.id === params[0]);
  if (!product) return fail(404, 'Product not found.');
  const errors: ErrorMap = {};
  const flags: Partial<Record<'default' | 'enabled' | 'available', boolean>> = {};
  for (const field of ['default', 'enabled', 'available'] as const) {
    const v = body[field];
    if (v === undefined) continue;
    if (typeof v !== 'boolean') errors[field] = [`The ${field} must be true or false.`];
    else flags[field] = v;
  }
  if (Object.keys(errors).length) return validation(errors);
  if (flags.default) for (const p of rt.state.products) p.default = false;
  Object.assign(product, flags);
  rt.markDirty();
  return ok({ ...product });
}

const faultView = (f: FaultRec) => ({ id: f.id, operation: f.operation, kind: f.kind, count: f.count, remaining: f.remaining, merchant_id: f.merchant_id });

function addFault({ rt, body }: ControlRequest): Reply {
  const input = new Input(body);
  const operation = input.oneOf<FaultOperation>('operation', FAULT_OPERATIONS);
  const kind = input.oneOf<FaultKind>('kind', FAULT_KINDS);
  const count = input.integer('count', 1, 1_000_000, 1);
  const bad = input.fail();
  if (bad) return bad;
  let merchant: string | null = null;
  if (body.merchant_id !== undefined && body.merchant_id !== null) {
    const m = merchantOf(rt, body);
    if (isReply(m)) return m;
    merchant = m;
  }
  const fault: FaultRec = { id: newId(cryptoRandom, rt.now()), operation: operation!, kind: kind!, count: count!, remaining: count!, merchant_id: merchant, created_at: rt.now() };
  rt.state.faults.push(fault);
  rt.markDirty();
  return ok(faultView(fault), 201);
}

/**
 * Spec's endpoint rules (https, port 443 or none, no userinfo, a public host), except that loopback
 * URLs (http or https, any port) are accepted: the mock is a local tool. Host names are resolved and
 * checked again at each delivery (webhooks.ts), since registration does not resolve.
 */
export function endpointUrlProblem(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.length > 2048) return 'The url is required: an https URL (or http on a loopback address).';
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'The url must be an absolute URL such as https://example.com/webhooks.';
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'The url must use https (http is accepted on a loopback address only).';
  if (u.username || u.password) return 'The url must not carry a user name or password.';
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (isLoopbackHost(host)) return null;
  if (u.protocol !== 'https:') return 'The url must use https (http is accepted on a loopback address only).';
  if (u.port !== '' && u.port !== '443') return 'The url must use port 443 (any port is accepted on a loopback address).';
  if (isIP(host) && isReservedAddress(host)) {
    return `The url's host ${host} is a private or reserved address: use a public host (or a loopback address for a local receiver).`;
  }
  if (!isIP(host) && isNonPublicName(host)) {
    return `The url must name a public host, not the local name ${host} (or use a loopback address for a local receiver).`;
  }
  return null;
}

function addEndpoint({ rt, body }: ControlRequest): Reply {
  const problem = endpointUrlProblem(body.url);
  if (problem) return validation({ url: [problem] });
  const merchant = merchantOf(rt, body);
  if (isReply(merchant)) return merchant;
  const now = rt.now();
  const ep = { id: newId(cryptoRandom, now), merchant_id: merchant, url: body.url as string, created_at: now };
  rt.state.endpoints[ep.id] = ep;
  rt.markDirty();
  return ok(endpointView(ep), 201);
}

/** Spec: a disabled endpoint is "re-enabled in the portal"; here, by this call. Held deliveries go out at once. */
function enableEndpoint({ rt, params }: ControlRequest): Reply {
  if (!Object.hasOwn(rt.state.endpoints, params[0]!)) return notFoundThing('Webhook endpoint');
  const ep = deliveryManagers.get(rt)?.enable(params[0]!) ?? rt.state.endpoints[params[0]!]!;
  return ok(endpointView(ep));
}

function deleteEndpoint({ rt, params }: ControlRequest): Reply {
  const ep = Object.hasOwn(rt.state.endpoints, params[0]!) ? removeEndpoint(rt, params[0]!) : null;
  return ep ? ok(endpointView(ep)) : notFoundThing('Webhook endpoint');
}

/** Sample data for a triggered event, so that `mock events emit TYPE` needs nothing else. */
function sampleData(type: string): Record<string, unknown> {
  const id = () => newId(cryptoRandom, Date.now());
  if (type.startsWith('customer.kyc.')) {
    const status = type.slice('customer.kyc.'.length);
    return { customer_id: id(), kyc_status: status, ...(status === 'rejected' ? { reason: 'identity_mismatch' } : {}) };
  }
  if (type === 'card.issued') return { card_id: id() };
  if (type === 'card.terminated') return { card_id: id(), refunded_amount_minor: 0 };
  if (type === 'deposit.credited') return { deposit_id: id(), credited_amount_minor: 10_000 };
  const data: Record<string, unknown> = { withdrawal_id: id(), amount_minor: 10_000 };
  if (type === 'withdrawal.requested') data.fee_minor = 100;
  if (type === 'withdrawal.completed') Object.assign(data, { fee_minor: 100, net_amount_minor: 9_900 });
  return data;
}

function emitEvent({ rt, body }: ControlRequest): Reply {
  const input = new Input(body);
  const type = input.oneOf('type', EVENT_TYPES);
  const mode = input.oneOf<Mode>('mode', MODES, 'test');
  if (input.has('data') && (typeof body.data !== 'object' || Array.isArray(body.data))) validationAdd(input, 'data', 'The data must be a JSON object.');
  const bad = input.fail();
  if (bad) return bad;
  const merchant = merchantOf(rt, body);
  if (isReply(merchant)) return merchant;
  const data = input.has('data') ? (body.data as Record<string, unknown>) : sampleData(type!);
  const e = rt.events.record(merchant, mode!, type!, data);
  rt.markDirty();
  return ok(eventView(e), 201);
}

function listEvents({ rt, query }: ControlRequest): Reply {
  const merchant = query.get('merchant_id');
  const type = query.get('type');
  return ok(rt.state.events.filter((e) => (!merchant || e.merchant_id === merchant) && (!type || e.type === type)).map(eventView));
}

function createMerchant({ rt }: ControlRequest): Reply {
  const { merchant, test, live } = addMerchant(rt.state, cryptoRandom, rt.now());
  rt.markDirty();
  return ok(
    {
      merchant_id: merchant.id,
      keys: { test: { key_id: test.key_id, secret: test.secret }, live: { key_id: live.key_id, secret: live.secret } },
      webhook_secret: merchant.webhook_secret,
    },
    201,
  );
}

const ROUTES: Array<[string, RegExp, ControlHandler]> = [
  ['GET', /^\/state$/, ({ rt }) => ok(summary(rt))],
  ['POST', /^\/reset$/, ({ rt }) => (rt.reset(), ok(summary(rt)))],
  ['POST', /^\/merchants$/, createMerchant],
  ['POST', /^\/keys$/, createKey],
  ['POST', /^\/keys\/([^/]+)\/roll$/, rollKey],
  ['POST', /^\/keys\/([^/]+)\/rotate$/, rotateKey],
  ['POST', /^\/keys\/([^/]+)\/revoke$/, revokeKey],
  ['GET', /^\/clock$/, ({ rt }) => ok(rt.clock.view())],
  ['POST', /^\/clock\/advance$/, advanceClock],
  ['POST', /^\/customers\/([^/]+)\/kyc$/, forceKyc],
  ['POST', /^\/cards\/([^/]+)\/provision$/, provision],
  ['POST', /^\/cards\/([^/]+)\/transactions$/, addTransaction],
  ['POST', /^\/deposits$/, addDeposit],
  ['POST', /^\/withdrawals$/, addWithdrawal],
  ['GET', /^\/products$/, ({ rt }) => ok(rt.state.products.map((p) => ({ ...p })))],
  ['PATCH', /^\/products\/([^/]+)$/, patchProduct],
  ['GET', /^\/networks$/, ({ rt }) => ok({ enabled: rt.state.networks })],
  ['PUT', /^\/networks$/, setNetworks],
  ['GET', /^\/faults$/, ({ rt }) => ok(rt.state.faults.map(faultView))],
  ['POST', /^\/faults$/, addFault],
  ['GET', /^\/wallets$/, ({ rt }) => wallets(rt)],
  ['GET', /^\/webhook-endpoints$/, ({ rt }) => ok(Object.values(rt.state.endpoints).map(endpointView))],
  ['POST', /^\/webhook-endpoints$/, addEndpoint],
  ['POST', /^\/webhook-endpoints\/([^/]+)\/enable$/, enableEndpoint],
  ['DELETE', /^\/webhook-endpoints\/([^/]+)$/, deleteEndpoint],
  ['GET', /^\/webhook-deliveries$/, ({ rt }) => ok(rt.deliveryLog())],
  ['GET', /^\/events$/, listEvents],
  ['POST', /^\/events$/, emitEvent],
];

export async function handleControl(
  rt: Runtime,
  method: string,
  rawPath: string,
  rawQuery: string,
  headers: Record<string, string | string[] | undefined>,
  raw: Buffer,
): Promise<Reply> {
  const auth = headers.authorization;
  const given = typeof auth === 'string' && /^Bearer /i.test(auth) ? auth.slice(7).trim() : '';
  const token = controlTokens.get(rt) ?? '';
  if (!token || !given || !safeEqual(given, token)) {
    return fail(401, 'Unauthorized.', { authorization: ['A valid control token is required: Authorization: Bearer <control_token of the mock banner>.'] });
  }
  let sub = rawPath.slice('/_mock'.length);
  if (sub.length > 1 && sub.endsWith('/')) sub = sub.slice(0, -1);
  for (const [m, pattern, handler] of ROUTES) {
    if (m !== method) continue;
    const match = pattern.exec(sub);
    if (!match) continue;
    const body = method === 'GET' ? {} : parseJsonObject(headers, raw);
    if (isReply(body)) return body;
    let params: string[];
    try {
      params = match.slice(1).map((p) => decodeURIComponent(p));
    } catch {
      return endpointNotFound();
    }
    let query: URLSearchParams;
    try {
      query = new URLSearchParams(rawQuery);
    } catch {
      query = new URLSearchParams();
    }
    return handler({ rt, body, query, params });
  }
  return endpointNotFound();
}
