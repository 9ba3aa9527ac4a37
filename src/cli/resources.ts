// What the resource commands (cards, customers, deposit-addresses, deposits) do once their
// flags are parsed: open a session, call one operation, print the resource or the list.
import type { OperationName } from '../contract/routes.js';
import type { ApiResponse } from '../client/client.js';
import type { OperationCall } from '../client/operations.js';
import type { ResourceKind } from '../output/resources.js';
import { sessionOptions, type ApiFlagValues, type ListFlagValues } from './api-flags.js';

export interface ShowFlags extends ApiFlagValues {
  json: boolean;
}

const dataOf = (res: ApiResponse | undefined): unknown => (res?.body as { data?: unknown } | undefined)?.data;
const isResource = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v) && typeof (v as { id?: unknown }).id === 'string';

/** One resource: every field as `key value` lines, or with --json the resource itself. */
export async function printResource(value: unknown, json: boolean): Promise<void> {
  const { jsonText, formatKeyValue } = await import('../output/index.js');
  if (json || !value || typeof value !== 'object') process.stdout.write(jsonText(value));
  else process.stdout.write(await formatKeyValue(value as Record<string, unknown>));
}

/**
 * Sends `operation` and prints the resource it answers. A 202 on a money operation still
 * prints what came back when it is a resource (the pending card carries the id to poll),
 * then fails with exit 7 and the key to replay. `waitS` (cards issue --wait) replays a 202
 * until the card is final or that many seconds passed.
 */
export async function showOperation(flags: ShowFlags, operation: OperationName, call: OperationCall, opts: { waitS?: number } = {}): Promise<void> {
  const [{ withSession }, { callOperation, issueAndWait }, { ApiError }] = await Promise.all([
    import('../client/session.js'),
    import('../client/operations.js'),
    import('../client/client.js'),
  ]);
  let res: ApiResponse;
  try {
    res = await withSession(sessionOptions(flags), async ({ client }) => {
      try {
        return await (operation === 'cards.issue' && opts.waitS !== undefined
          ? issueAndWait(client, call, { timeoutS: opts.waitS, note: (line) => process.stderr.write(`${line}\n`) })
          : callOperation(client, operation, call));
      } catch (err) {
        // "not approved" means wait only while pending: say what to do for the customer's state
        const customer = (call.json as { customer_id?: unknown } | undefined)?.customer_id;
        if (err instanceof ApiError && err.code === 'kyc_not_approved' && typeof customer === 'string') {
          const { explainKycRefusal } = await import('../client/kyc-hint.js');
          throw await explainKycRefusal(client, customer, err);
        }
        throw err;
      }
    });
  } catch (err) {
    // (with --json the error object is the one value printed; its idempotency_key replays)
    if (!flags.json && err instanceof ApiError && err.status === 202 && isResource(dataOf(err.response))) await printResource(dataOf(err.response), false);
    throw err;
  }
  // not sent: the journal's answer (a key the API has forgotten), marked as such
  await printResource(res.fromJournal ?? dataOf(res), flags.json);
}

/** A list: a table (or `{data, meta}` with --json, one line per resource with --ndjson). */
export async function listOperation(flags: ListFlagValues, operation: OperationName, params: Record<string, string> | undefined, kind: ResourceKind): Promise<void> {
  const [{ withSession }, { pages }, out, { COLUMNS, PLURAL }] = await Promise.all([
    import('../client/session.js'),
    import('../client/operations.js'),
    import('../output/index.js'),
    import('../output/resources.js'),
  ]);
  await withSession(sessionOptions(flags), async ({ client }) => {
    const rows: unknown[] = [];
    let lastMeta: Record<string, unknown> | undefined;
    for await (const page of pages(client, operation, params, { perPage: flags['per-page'], cursor: flags.cursor, all: flags.all })) {
      lastMeta = page.meta;
      if (flags.ndjson) {
        for (const item of page.data) await out.writeNdjson(item);
      } else {
        rows.push(...page.data);
      }
    }
    if (flags.ndjson) return;
    if (flags.json) {
      // one page: as the API sent it; --all: every row, and no cursor left to follow
      process.stdout.write(out.jsonText(flags.all || !lastMeta ? { data: rows } : { data: rows, meta: lastMeta }));
      return;
    }
    if (rows.length === 0) process.stderr.write(`No ${PLURAL[kind]}.\n`);
    else process.stdout.write(await out.formatTable(rows as Array<Record<string, unknown>>, COLUMNS[kind]));
    const next = lastMeta?.has_more === true ? lastMeta.next_cursor : undefined;
    if (!flags.all && typeof next === 'string') process.stderr.write(`More ${PLURAL[kind]}: add --cursor ${next} (or --all for every page).\n`);
  });
}
