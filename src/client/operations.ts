// The resource commands' one entry into the API: an operation of the route table, its path
// parameters checked as ULIDs, pages followed, and `--wait` on a card issue. Everything else
// (signing, retries, idempotency keys, the journal, errors) is the client's.
import { ROUTES, ULID_PATTERN, type OperationName, type RouteDef } from '../contract/routes.js';
import { CardctlError, usageError } from '../errors.js';
import { ApiClient, ApiError, type ApiResponse } from './client.js';

export interface OperationCall {
  /** path parameters by the route's names (`card`, `customer`) */
  params?: Record<string, string>;
  /** a JSON body (money bodies are serialized deterministically by the client) */
  json?: unknown;
  query?: ReadonlyArray<readonly [string, string]>;
  idempotencyKey?: string;
  /** a row of `--batch` (src/client/money-rules.ts, rule 4) */
  batch?: boolean;
}

export function routeOf(operation: OperationName): RouteDef {
  const route = ROUTES.find((r) => r.operation === operation);
  if (!route) throw new Error(`no route for ${operation}`); // a programming error, not input
  return route;
}

/** `cards get abc` is refused here (exit 2) rather than sent to answer 404. Ids are case-insensitive. */
export function checkId(what: string, value: string): string {
  const id = value.trim().toUpperCase();
  if (!ULID_PATTERN.test(id)) {
    const where =
      what === 'customer'
        ? '`cardctl customers list` shows them'
        : what === 'product'
          ? 'product ids come from your account manager; the mock lists its own in its banner'
          : 'copy it from the answer that created it, e.g. `--json | jq -r .id`';
    // quoted only when it looks like a mistyped id, never a long value (a secret pasted by mistake)
    const shown =
      value.length <= 32 && /^[\w.-]*$/.test(value)
        ? `"${value}"`
        : `the value given (${value.length} characters, not shown)`;
    throw usageError(
      `${shown} is not a ${what} id: ids are 26-character ULIDs (Crockford base32, e.g. 01JD2Q7N8V3K4M5P6R7S8T9V0W).`,
      `Check the id (${where}).`,
    );
  }
  return id;
}

export function operationPath(route: RouteDef, params: Record<string, string> = {}): string {
  let parts = pathParts.get(route);
  if (!parts) pathParts.set(route, (parts = route.path.split(/\{(\w+)\}/)));
  // the route's text and its parameters in turn (split once a route: a --batch builds a million paths)
  let path = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) {
    const name = parts[i]!;
    const value = params[name];
    if (value === undefined) throw new Error(`missing path parameter ${name} for ${route.operation}`);
    path += checkId(name, value) + parts[i + 1]!;
  }
  return path;
}

/** A route's path split at its parameters: text, name, text, ... */
const pathParts = new Map<RouteDef, string[]>();

/**
 * The body checked against the contract's schemas, the mock's own, so a bad body is refused
 * here (exit 2, nothing sent) with the messages the API would give in its 422.
 */
export async function checkBody(operation: OperationName, json: unknown): Promise<void> {
  const { isMoneyOperation, plainlyValid } = await import('../contract/money-bodies.js');
  if (isMoneyOperation(operation) && plainlyValid(operation, json)) return; // surely accepted: no zod to load
  const c = await import('../contract/index.js'); // zod: lazy
  const zod = (schema: { safeParse(v: unknown): { success: boolean; error?: unknown } }) => {
    const r = schema.safeParse(json);
    return r.success ? null : c.validationErrors(r.error as never);
  };
  const customer = (r: { ok: true } | { ok: false; errors: Record<string, string[]> }) => (r.ok ? null : r.errors);
  const errors: Record<string, string[]> | null =
    operation === 'cards.issue'
      ? zod(c.IssueCardSchema)
      : operation === 'cards.recharge'
        ? zod(c.RechargeSchema)
        : operation === 'cards.terminate'
          ? zod(c.TerminateSchema)
          : operation === 'customers.create'
            ? customer(c.parseCustomerCreate(json, new Date()))
            : operation === 'customers.update'
              ? customer(c.parseCustomerUpdate(json, new Date()))
              : operation === 'depositAddresses.create'
                ? zod(c.DepositAddressCreateSchema)
                : null;
  if (errors) {
    const n = Object.keys(errors).length;
    throw new CardctlError(`nothing was sent: ${n} field${n === 1 ? ' is' : 's are'} not valid.`, {
      kind: 'usage',
      code: 'validation_failed', // as the API's 422 would say in --json
      hint: 'Fix each field listed (the API would refuse them with 422 Validation failed.).',
      errors,
    });
  }
}

export async function callOperation(
  client: ApiClient,
  operation: OperationName,
  call: OperationCall = {},
): Promise<ApiResponse> {
  const route = routeOf(operation);
  if (call.json !== undefined) await checkBody(operation, call.json);
  return client.send({
    method: route.method,
    path: operationPath(route, call.params),
    json: call.json,
    query: call.query,
    idempotencyKey: call.idempotencyKey,
    batch: call.batch,
  });
}

export interface Page {
  data: unknown[];
  meta?: Record<string, unknown>;
}

export interface PageOptions {
  perPage?: number;
  cursor?: string;
  /** follow `meta.next_cursor` to the end */
  all?: boolean;
}

function pageOf(res: ApiResponse): Page {
  const body = res.body as { data?: unknown; meta?: unknown } | undefined;
  if (!body || !Array.isArray(body.data)) {
    throw new CardctlError(`the answer to ${res.method} ${res.url} is not a list (status ${res.status}).`, {
      kind: 'unexpected',
      status: res.status,
      hint: 'Run it again with --verbose to see the answer.',
    });
  }
  const meta = body.meta && typeof body.meta === 'object' ? (body.meta as Record<string, unknown>) : undefined;
  return { data: body.data, meta };
}

/**
 * The pages of a list operation, one request at a time (so `--all --ndjson` streams in
 * constant memory). Lists without pagination (deposit addresses) give one page.
 */
export async function* pages(
  client: ApiClient,
  operation: OperationName,
  params: Record<string, string> | undefined,
  opts: PageOptions,
): AsyncGenerator<Page> {
  const route = routeOf(operation);
  let cursor = opts.cursor;
  const seen = new Set<string>();
  for (;;) {
    const query: Array<[string, string]> = [];
    if (route.paginated && opts.perPage !== undefined) query.push(['per_page', String(opts.perPage)]);
    if (route.paginated && cursor !== undefined) query.push(['cursor', cursor]);
    const page = pageOf(await callOperation(client, operation, { params, query }));
    yield page;
    const next =
      page.meta?.has_more === true && typeof page.meta.next_cursor === 'string' ? page.meta.next_cursor : undefined;
    if (!opts.all || !route.paginated || next === undefined) return;
    // a server that hands back a cursor it already gave would loop forever
    if (seen.has(next))
      throw new CardctlError(`the API returned the cursor "${next}" twice; stopped following pages.`, {
        kind: 'unexpected',
        hint: 'Report it; list page by page with --cursor meanwhile.',
      });
    seen.add(next);
    cursor = next;
  }
}

export interface WaitOptions {
  /** give up after this many seconds */
  timeoutS: number;
  note?: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/**
 * What to do about a card still pending at the end of `--wait`. On cardctl's own mock (its answers
 * carry X-Cardctl-Mock-Request) a card stays pending until the mock is told how provisioning
 * ended (an `async_202` fault): name that control, with the card's id when the answer carried it.
 */
function stillPendingHint(key: string | undefined, response: ApiResponse | undefined): string {
  const wait = `Wait longer with the same key: \`cardctl cards issue ... --idempotency-key ${key} --wait\` (or \`cardctl ops replay ${key}\`); do not issue it again with a new key.`;
  if (!response?.headers['x-cardctl-mock-request']) return wait;
  const id = (response.body as { data?: { id?: unknown } } | undefined)?.data?.id;
  const card = typeof id === 'string' ? id : 'CARD';
  return `${wait} On cardctl's mock a pending card (an async_202 fault) stays pending until provisioning is finished: \`cardctl mock provision ${card}\` (or \`--outcome failed\`), then the same --wait answers at once.`;
}

/** A 202 the API just sent (not the journal's report of an old one, which has no status). */
const isPending = (err: unknown): err is ApiError =>
  err instanceof ApiError && err.kind === 'outcome_unknown' && err.status === 202 && err.response?.status === 202;

/**
 * `cards issue --wait`: a 202 may carry no card id, so the only safe way to learn the outcome
 * is to replay the same key and bytes (spec: "replay of the same key returns the card in its
 * current state, 201 once active") until the answer is final. Replays are recorded under the
 * same journal entry.
 */
export async function issueAndWait(given: ApiClient, call: OperationCall, opts: WaitOptions): Promise<ApiResponse> {
  const route = routeOf('cards.issue');
  // the polls replay this command's own send: their "Replay: Idempotency-Key ... was first sent"
  // line would repeat at every poll (the pending line says what is going on); only the first
  // send's is said, when the key was sent before this command
  let sends = 0;
  const client = new ApiClient({
    ...given.opts,
    note: (line) => {
      if (sends > 1 && line.startsWith('Replay: ')) return;
      given.opts.note?.(line);
    },
  });
  await checkBody('cards.issue', call.json);
  const prepared = await client.prepare({
    method: route.method,
    path: route.path,
    json: call.json,
    idempotencyKey: call.idempotencyKey,
  });
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = now() + opts.timeoutS * 1000;
  let journalId: string | undefined;
  let delayMs = 500;
  for (;;) {
    try {
      sends++;
      return await client.sendPrepared(prepared, journalId);
    } catch (err) {
      if (!isPending(err)) throw err;
      journalId ??= err.response?.journalId;
      const left = deadline - now();
      if (left <= 0) {
        const timedOut = new ApiError(`the card is still pending after ${opts.timeoutS} s.`, {
          kind: 'outcome_unknown',
          status: 202,
          errors: err.errors,
          idempotencyKey: prepared.idempotencyKey,
          hint: stillPendingHint(prepared.idempotencyKey, err.response),
        });
        timedOut.response = err.response;
        throw timedOut;
      }
      const pendingId = (err.response?.body as { data?: { id?: unknown } } | undefined)?.data?.id;
      opts.note?.(
        `pending${typeof pendingId === 'string' ? ` (card ${pendingId})` : ''}: replaying Idempotency-Key ${prepared.idempotencyKey} in ${Math.round(Math.min(delayMs, left) / 100) / 10} s`,
      );
      await sleep(Math.min(delayMs, left));
      delayMs = Math.min(delayMs * 2, 5_000);
    }
  }
}
