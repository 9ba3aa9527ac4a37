// Signed HTTP requests against a running mock, for the mock's conformance tests.
// Works from the agreed interface (baseUrl, controlUrl, controlToken, keys) only, so it does
// not import src/mock: the tests check the mock from the outside, as a user would.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { expect } from 'vitest';
import { signRequest } from '../../src/signing/index.js';

export interface KeyPair {
  keyId: string;
  secret: string;
}

/** The part of a started mock these helpers need (see notes/mock-interface.md). */
export interface MockHandle {
  baseUrl: string;
  controlUrl: string;
  controlToken: string;
  merchantId: string;
  keys: { test: KeyPair; live: KeyPair };
  webhookSecret: string;
  products: Array<{
    id: string;
    name: string;
    currency: string;
    min_initial_load_minor: number;
    issue_fee_minor: number;
    default: boolean;
    enabled: boolean;
    available: boolean;
  }>;
  networks: string[];
  port: number;
  close(): Promise<void>;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** parsed JSON, or undefined when the body is not JSON */
  body: T;
  raw: Buffer;
}

export interface ApiCallOptions {
  method: string;
  /** relative to baseUrl (`/cards`), or a full path starting with `/api/v1` */
  path: string;
  /** raw query string (sent exactly as given, without `?`) or a record of parameters */
  query?: string | Record<string, string | number | Array<string | number>>;
  body?: object | string | Buffer;
  mode?: 'test' | 'live';
  key?: KeyPair;
  headers?: Record<string, string>;
  idempotencyKey?: string;
  /** Unix seconds; default: now */
  timestamp?: number | string;
  nonce?: string;
  /** connect to this local address (e.g. to test allowlists from another source) */
  localAddress?: string;
}

// One keep-alive agent for all helper traffic: fewer sockets on a loaded machine.
export const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function baseParts(url: string): { host: string; port: number; prefix: string } {
  const u = new URL(url);
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port), prefix: u.pathname.replace(/\/$/, '') };
}

/** Builds `a=1&b=2` from a record with the same encoding a careful client uses. */
export function encodeQuery(query: ApiCallOptions['query']): string {
  if (query === undefined) return '';
  if (typeof query === 'string') return query.replace(/^\?/, '');
  const parts: string[] = [];
  for (const [k, v] of Object.entries(query)) {
    for (const item of Array.isArray(v) ? v : [v])
      parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(item))}`);
  }
  return parts.join('&');
}

export function bodyBytes(body: ApiCallOptions['body']): Buffer | undefined {
  if (body === undefined) return undefined;
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  return Buffer.from(JSON.stringify(body), 'utf8');
}

export interface RawRequestOptions {
  method: string;
  /** the request target exactly as it goes on the wire (path and query) */
  path: string;
  headers?: Record<string, string | string[]>;
  body?: Buffer | string;
  host?: string;
  port: number;
  localAddress?: string;
  timeoutMs?: number;
  /** a connection of its own, not one from the keep-alive pool */
  freshConnection?: boolean;
}

/** A request with nothing added: no signature, no content type. For deliberately broken requests. */
export function rawRequest(opts: RawRequestOptions): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const body =
      opts.body === undefined ? undefined : Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(opts.body, 'utf8');
    const headers: Record<string, string | string[] | number> = { ...(opts.headers ?? {}) };
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length'))
      headers['Content-Length'] = body.length;
    const req = http.request(
      {
        host: opts.host ?? '127.0.0.1',
        port: opts.port,
        method: opts.method,
        path: opts.path,
        headers,
        agent: opts.freshConnection ? false : agent,
        localAddress: opts.localAddress,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          let parsed: unknown;
          try {
            parsed = JSON.parse(raw.toString('utf8'));
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed, raw });
        });
      },
    );
    req.setTimeout(opts.timeoutMs ?? 30_000, () =>
      req.destroy(new Error(`no answer within ${opts.timeoutMs ?? 30_000} ms`)),
    );
    req.on('error', reject);
    if (body !== undefined) req.end(body);
    else req.end();
  });
}

/** Arbitrary bytes on a fresh socket; resolves with what the server wrote before closing (or timeout). */
export function rawSocket(port: number, bytes: Buffer, host = '127.0.0.1', timeoutMs = 5_000): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect({ port, host }, () => socket.end(bytes));
    const done = () => resolve(Buffer.concat(chunks));
    socket.setTimeout(timeoutMs, () => socket.destroy());
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', done);
    socket.on('close', done);
  });
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** Signs the request the way SIGNING.md says and sends it. */
export function apiCall<T = any>(mock: MockHandle, opts: ApiCallOptions): Promise<ApiResponse<T>> {
  const { host, port, prefix } = baseParts(mock.baseUrl);
  const path = opts.path.startsWith('/api/') ? opts.path : prefix + opts.path;
  const query = encodeQuery(opts.query);
  const body = bodyBytes(opts.body);
  const key = opts.key ?? mock.keys[opts.mode ?? 'test'];
  const signed = signRequest({
    method: opts.method,
    path,
    query,
    keyId: key.keyId,
    secret: key.secret,
    timestamp: opts.timestamp ?? nowSeconds(),
    nonce: opts.nonce ?? randomUUID(),
    body,
  });
  const headers: Record<string, string> = { ...signed.headers };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (opts.idempotencyKey !== undefined) headers['Idempotency-Key'] = opts.idempotencyKey;
  Object.assign(headers, opts.headers ?? {});
  return rawRequest({
    host,
    port,
    method: opts.method,
    path: query ? `${path}?${query}` : path,
    headers,
    body,
    localAddress: opts.localAddress,
  });
}

/** The signed headers alone, for tests that break one of them on purpose. */
export function signedHeaders(
  mock: MockHandle,
  opts: Pick<ApiCallOptions, 'method' | 'path' | 'query' | 'body' | 'mode' | 'key' | 'timestamp' | 'nonce'>,
): Record<string, string> {
  const { prefix } = baseParts(mock.baseUrl);
  const path = opts.path.startsWith('/api/') ? opts.path : prefix + opts.path;
  const key = opts.key ?? mock.keys[opts.mode ?? 'test'];
  return {
    ...signRequest({
      method: opts.method,
      path,
      query: encodeQuery(opts.query),
      keyId: key.keyId,
      secret: key.secret,
      timestamp: opts.timestamp ?? nowSeconds(),
      nonce: opts.nonce ?? randomUUID(),
      body: bodyBytes(opts.body),
    }).headers,
  };
}

/** A control-plane call (`/_mock/...`) with the bearer token, or with `token` when given. */
export function control<T = any>(
  mock: MockHandle,
  method: string,
  path: string,
  body?: unknown,
  token: string | null = mock.controlToken,
): Promise<ApiResponse<T>> {
  const { host, port, prefix } = baseParts(mock.controlUrl);
  const full = path.startsWith('/_mock') ? path : prefix + (path.startsWith('/') ? path : '/' + path);
  const headers: Record<string, string> = {};
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  const bytes = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8');
  if (bytes) headers['Content-Type'] = 'application/json';
  return rawRequest({ host, port, method, path: full, headers, body: bytes });
}

/** Control call that must succeed; returns `data`. */
export async function ctl<T = any>(mock: MockHandle, method: string, path: string, body?: unknown): Promise<T> {
  const res = await control(mock, method, path, body);
  if (res.status >= 300 || res.body?.success !== true) {
    throw new Error(`control ${method} ${path} answered ${res.status}: ${res.raw.toString('utf8').slice(0, 500)}`);
  }
  return res.body.data as T;
}

// ---- fixtures and small readers shared by the spec tests ----

let seq = 0;

/** A complete, valid CustomerInput for a bvn (Nigeria) individual; override any field. */
export function customerInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  seq += 1;
  return {
    customer_type: 'individual',
    first_name: 'Ada',
    last_name: `Obi${seq}`,
    email: `ada${seq}@example.com`,
    phone_number: '8031234567',
    dial_code: '+234',
    date_of_birth: '1990-04-12',
    id_type: 'bvn',
    id_number: '22212345678',
    line1: '1 Marina Road',
    city: 'Lagos',
    state: 'Lagos',
    postal_code: '100001',
    country: 'NGA',
    occupation: 'software_engineer',
    employment_status: 'employed',
    account_purpose: 'business_expenses',
    annual_salary: '50000',
    expected_monthly_volume: '2000',
    terms_of_service_accepted: true,
    ...overrides,
  };
}

/** A tiny valid base64 "image" for document id types. */
export const TINY_IMAGE = Buffer.from('\xff\xd8\xff\xe0fake-jpeg-front', 'latin1').toString('base64');

export async function createCustomer(
  mock: MockHandle,
  opts: { mode?: 'test' | 'live'; key?: KeyPair; overrides?: Record<string, unknown> } = {},
): Promise<any> {
  const res = await apiCall(mock, {
    method: 'POST',
    path: '/customers',
    body: customerInput(opts.overrides),
    mode: opts.mode,
    key: opts.key,
  });
  if (res.status !== 202)
    throw new Error(`create customer answered ${res.status}: ${res.raw.toString('utf8').slice(0, 500)}`);
  return res.body.data;
}

export async function getCustomer(
  mock: MockHandle,
  id: string,
  mode: 'test' | 'live' = 'test',
  key?: KeyPair,
): Promise<any> {
  const res = await apiCall(mock, { method: 'GET', path: `/customers/${id}`, mode, key });
  if (res.status !== 200)
    throw new Error(`get customer answered ${res.status}: ${res.raw.toString('utf8').slice(0, 300)}`);
  return res.body.data;
}

/** A customer that is `approved`: created with a test key (approved at once in test mode), forced otherwise. */
export async function approvedCustomer(mock: MockHandle, key?: KeyPair): Promise<any> {
  const c = await createCustomer(mock, { mode: 'test', key });
  let read = await getCustomer(mock, c.id, 'test', key);
  if (read.kyc_status !== 'approved') {
    await ctl(mock, 'POST', `/customers/${c.id}/kyc`, { verdict: 'approved' });
    read = await getCustomer(mock, c.id, 'test', key);
  }
  return read;
}

export function newIdemKey(): string {
  return `idem-${randomUUID()}`;
}

export async function issueCard(
  mock: MockHandle,
  opts: {
    customerId: string;
    amount?: number;
    productId?: string;
    mode?: 'test' | 'live';
    key?: KeyPair;
    idempotencyKey?: string;
  },
): Promise<ApiResponse> {
  const body: Record<string, unknown> = { customer_id: opts.customerId, amount_minor: opts.amount ?? 1000 };
  if (opts.productId) body.product_id = opts.productId;
  return apiCall(mock, {
    method: 'POST',
    path: '/cards',
    body,
    mode: opts.mode,
    key: opts.key,
    idempotencyKey: opts.idempotencyKey ?? newIdemKey(),
  });
}

/** Issues a card that must answer 201; returns the Card. */
export async function activeCard(
  mock: MockHandle,
  opts: { customerId?: string; amount?: number; mode?: 'test' | 'live'; key?: KeyPair } = {},
): Promise<any> {
  const customerId =
    opts.customerId ??
    (await approvedCustomer(mock, opts.key ?? (opts.mode === 'live' ? mock.keys.live : undefined))).id;
  const res = await issueCard(mock, { customerId, amount: opts.amount, mode: opts.mode, key: opts.key });
  if (res.status !== 201) throw new Error(`issue answered ${res.status}: ${res.raw.toString('utf8').slice(0, 500)}`);
  return res.body.data;
}

export interface WalletRow {
  merchant_id: string;
  mode: 'test' | 'live';
  currency: string;
  balance_minor: number;
  cards_balance_minor: number;
  fees_collected_minor: number;
  reserved_minor: number;
  initial_balance_minor: number;
  deposits_credited_minor: number;
}

export async function wallets(mock: MockHandle): Promise<WalletRow[]> {
  return ctl<WalletRow[]>(mock, 'GET', '/wallets');
}

export async function wallet(
  mock: MockHandle,
  mode: 'test' | 'live' = 'test',
  merchantId = mock.merchantId,
): Promise<WalletRow> {
  const row = (await wallets(mock)).find((w) => w.merchant_id === merchantId && w.mode === mode);
  if (!row) throw new Error(`no ${mode} wallet row for merchant ${merchantId}`);
  return row;
}

/** The interface's conservation rule for one wallet row; returns the difference (0 when it holds). */
export function walletImbalance(w: WalletRow): number {
  return (
    w.balance_minor +
    w.cards_balance_minor +
    w.fees_collected_minor +
    w.reserved_minor -
    (w.initial_balance_minor + w.deposits_credited_minor)
  );
}

export interface MockEvent {
  id: string;
  merchant_id: string;
  mode: string;
  type: string;
  occurred_at: string;
  data: Record<string, unknown>;
}

export async function events(mock: MockHandle, merchantId = mock.merchantId): Promise<MockEvent[]> {
  return ctl<MockEvent[]>(mock, 'GET', `/events?merchant_id=${encodeURIComponent(merchantId)}`);
}

export async function advance(mock: MockHandle, seconds: number): Promise<any> {
  return ctl(mock, 'POST', '/clock/advance', { seconds });
}

export async function fault(
  mock: MockHandle,
  operation: 'issue' | 'recharge' | 'terminate' | 'any',
  kind: string,
  count = 1,
  merchantId?: string,
): Promise<any> {
  return ctl(mock, 'POST', '/faults', { operation, kind, count, ...(merchantId ? { merchant_id: merchantId } : {}) });
}

/** The first stdout line of `cardctl mock start --json`. */
export interface MockBanner {
  base_url: string;
  control_url: string;
  control_token: string;
  merchant_id: string;
  keys: { test: { key_id: string; secret: string }; live: { key_id: string; secret: string } };
  webhook_secret: string;
  products: MockHandle['products'];
  networks: string[];
}

/** The handle these helpers take, for a mock started as a process (`close` stops that process). */
export function handleFromBanner(b: MockBanner, close: () => Promise<void> = async () => {}): MockHandle {
  return {
    baseUrl: b.base_url,
    controlUrl: b.control_url,
    controlToken: b.control_token,
    merchantId: b.merchant_id,
    keys: {
      test: { keyId: b.keys.test.key_id, secret: b.keys.test.secret },
      live: { keyId: b.keys.live.key_id, secret: b.keys.live.secret },
    },
    webhookSecret: b.webhook_secret,
    products: b.products,
    networks: b.networks,
    port: Number(new URL(b.base_url).port),
    close,
  };
}

/** A fresh merchant with its own keys (isolates lists and wallets between tests). */
export async function newMerchant(
  mock: MockHandle,
): Promise<{ merchantId: string; test: KeyPair; live: KeyPair; webhookSecret: string }> {
  const d = await ctl(mock, 'POST', '/merchants', {});
  return {
    merchantId: d.merchant_id,
    test: { keyId: d.keys.test.key_id, secret: d.keys.test.secret },
    live: { keyId: d.keys.live.key_id, secret: d.keys.live.secret },
    webhookSecret: d.webhook_secret,
  };
}

/** A key created through the control plane. */
export async function newKey(
  mock: MockHandle,
  opts: { mode?: 'test' | 'live'; merchant_id?: string; scopes?: string[]; ip_allowlist?: string[] } = {},
): Promise<KeyPair> {
  const d = await ctl(mock, 'POST', '/keys', { mode: opts.mode ?? 'test', ...opts });
  return { keyId: d.key_id, secret: d.secret };
}

/** Credits the live wallet of a merchant with a deposit; returns the Deposit. */
export async function fundLive(mock: MockHandle, assetAmount = '1000', merchantId?: string): Promise<any> {
  return ctl(mock, 'POST', '/deposits', {
    network: mock.networks[0],
    asset_amount: assetAmount,
    status: 'credited',
    ...(merchantId ? { merchant_id: merchantId } : {}),
  });
}

/** The code of an error envelope's `errors[field]`, e.g. errorCode(res, 'gateway'). */
export function errorList(res: ApiResponse, field: string): unknown {
  return res.body?.errors?.[field];
}

/** A syntactically valid ULID nobody has. */
export const UNKNOWN_ULID = '01JD2QZZZZZZZZZZZZZZZZZZZZ';

// ---- assertions in the spec's terms ----
/** An error envelope: status, `success: false`, a message, and `errors[field]` containing `code`. */
export function expectError(res: ApiResponse, status: number, field?: string, code?: string): void {
  const ctx = `${res.status} ${res.raw.toString('utf8').slice(0, 400)}`;
  expect(res.status, ctx).toBe(status);
  expect(res.body?.success, ctx).toBe(false);
  expect(typeof res.body?.message, ctx).toBe('string');
  expect(typeof res.body?.errors, ctx).toBe('object');
  if (field === undefined) return;
  const list = res.body.errors[field];
  expect(Array.isArray(list), ctx).toBe(true);
  if (code !== undefined) expect(list, ctx).toContain(code);
}

/** A 422 `Validation failed.` naming `field` with human-readable strings. */
export function expectValidation(res: ApiResponse, field: string): void {
  expectError(res, 422, field);
  expect(res.body.message).toBe('Validation failed.');
  for (const m of res.body.errors[field]) expect(typeof m).toBe('string');
}

/** A 404 with the error envelope and no detail (`errors: {}`). */
export function expectNotFound(res: ApiResponse): void {
  expectError(res, 404);
  expect(res.body.errors, res.raw.toString('utf8')).toEqual({});
}

export function expectOk(res: ApiResponse, status = 200): any {
  expect(res.status, `${res.status} ${res.raw.toString('utf8').slice(0, 400)}`).toBe(status);
  expect(res.body?.success).toBe(true);
  return res.body.data;
}

/** A card's balance, as the mock's API answers it. */
export async function cardBalance(mock: MockHandle, id: string): Promise<number> {
  return (await apiCall(mock, { method: 'GET', path: `/cards/${id}` })).body.data.balance_minor;
}

/** How many API requests the mock answered while `f` ran (from its request log). */
export async function apiRequestsDuring(mock: MockHandle, f: () => Promise<unknown>): Promise<number> {
  const newest = (await ctl(mock, 'GET', '/requests?limit=1')) as Array<{ id: string }>;
  await f();
  return ((await ctl(mock, 'GET', `/requests?plane=api&limit=1000&after=${newest[0]!.id}`)) as unknown[]).length;
}
