// What the resource commands (cards, customers, deposit-addresses, deposits) do once their
// flags are parsed: open a session, call one operation, return the resource or the list as the
// command's result (src/output/render.ts, src/output/list.ts).
import type { CardctlError } from '../errors.js';
import type { OperationName } from '../contract/routes.js';
import type { ApiResponse } from '../client/client.js';
import type { OperationCall } from '../client/operations.js';
import type { ResourceKind } from '../output/resources.js';
import { sessionOptions, type ApiFlagValues, type ListFlagValues } from './api-flags.js';
import { interruptible, resumeCommand } from './interrupt.js';
import type { Io } from '../io.js';
import type { Result } from '../output/render.js';

export interface ShowFlags extends ApiFlagValues {
  json: boolean;
}

const dataOf = (res: ApiResponse | undefined): unknown => (res?.body as { data?: unknown } | undefined)?.data;
const isResource = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v) && typeof (v as { id?: unknown }).id === 'string';

/**
 * Sends `operation` and prints the resource it answers. A 202 on a money operation still
 * prints what came back when it is a resource (the pending card carries the id to poll),
 * then fails with exit 7 and the key to replay. `waitS` (cards issue --wait) replays a 202
 * until the card is final or that many seconds passed.
 */
export async function showOperation(
  io: Io,
  flags: ShowFlags,
  operation: OperationName,
  call: OperationCall,
  opts: { waitS?: number } = {},
): Promise<Result> {
  const [{ withSession }, { callOperation, issueAndWait, routeOf }, { ApiError }] = await Promise.all([
    import('../client/session.js'),
    import('../client/operations.js'),
    import('../client/client.js'),
  ]);
  const wait = operation === 'cards.issue' && opts.waitS !== undefined;
  const watch: MoneyWatch = { operation, wait, pending: false };
  const money = routeOf(operation).money === true;
  const send = () =>
    withSession({ ...sessionOptions(flags, io), money, onSent: (s) => void (watch.sent = s) }, async ({ client }) => {
      try {
        return await (wait
          ? issueAndWait(client, call, {
              timeoutS: opts.waitS!,
              note: (line) => {
                if (line.startsWith('pending')) watch.pending = true;
                io.stderr.write(`${line}\n`);
              },
            })
          : callOperation(client, operation, call));
      } catch (err) {
        // "not approved" means wait only while pending: say what to do for the customer's state
        const { kycRefusedCustomer, explainKycRefusal } = await import('../client/kyc-hint.js');
        const customer = kycRefusedCustomer(call, err);
        if (customer) throw await explainKycRefusal(client, customer, err as CardctlError);
        // "not in its current state": say which state ("card X is already frozen")
        const { invalidStateCard, explainCardState } = await import('../client/card-state-hint.js');
        const card = invalidStateCard(operation, call, err);
        throw card ? await explainCardState(client, operation, card, err as CardctlError) : err;
      }
    });
  let res: ApiResponse;
  try {
    res = await (money ? interruptible(io, (signal) => ({ stderr: interruptedMoney(signal, watch) }), send) : send());
  } catch (err) {
    // a 202: the pending resource, then the error (with --json the error object is the one
    // value printed; its idempotency_key replays)
    if (err instanceof ApiError && err.status === 202 && isResource(dataOf(err.response)))
      return (await import('../output/render.js')).outcome(await resourceResult(dataOf(err.response)), {
        failure: err,
      });
    throw err;
  }
  // not sent: the journal's answer (a key the API has forgotten), marked as such
  return resourceResult(res.fromJournal ?? dataOf(res));
}

/** A resource as a command's result (src/output/render.ts): itself with --json, `key value` lines for people. */
async function resourceResult(value: unknown): Promise<Result> {
  const [{ result }, { formatKeyValue, jsonText }] = await Promise.all([
    import('../output/render.js'),
    import('../output/index.js'),
  ]);
  return result(value, (out) =>
    !value || typeof value !== 'object' ? jsonText(value) : formatKeyValue(value as Record<string, unknown>, out),
  );
}

interface MoneyWatch {
  operation: OperationName;
  wait: boolean;
  /** the answer so far was 202 (`--wait` is replaying it) */
  pending: boolean;
  sent?: { idempotencyKey?: string; journalId?: string };
}

/** What an interrupted money command says on stderr (src/cli/interrupt.ts): what is unresolved, and the command that resumes it. */
function interruptedMoney(signal: NodeJS.Signals, w: MoneyWatch): string {
  const what = w.operation.replace('.', ' ');
  const argv = process.argv.slice(2);
  if (!w.sent)
    return `Interrupted (${signal}) before anything was sent: nothing was charged. Run it again:\n  ${resumeCommand(argv)}\n`;
  const key = w.sent.idempotencyKey!;
  const state = w.pending
    ? 'accepted (202), the card still pending: not final yet'
    : 'sent, its answer not received: its outcome is unknown';
  return (
    `Interrupted (${signal}) while ${what} was under way.\n` +
    `Finished: nothing.\n` +
    `Unresolved: Idempotency-Key ${key}${w.sent.journalId ? ` (journal ${w.sent.journalId})` : ''}: ${state}.\n` +
    `Resume it (the same key replays it: no second charge):\n  ${resumeCommand(argv, { idempotencyKey: key, flags: w.wait ? ['--wait'] : [] })}\n`
  );
}

/**
 * A list as the command's result (src/output/list.ts): a table, or `{data, meta}` with --json
 * (what --jq filters), one line per resource with --ndjson, CSV or TSV with --output. The pages
 * are fetched as the renderer pulls them, inside one session (open while they are pulled, closed
 * after): NDJSON, CSV and TSV stream page by page.
 */
export async function listOperation(
  io: Io,
  flags: ListFlagValues,
  operation: OperationName,
  params: Record<string, string> | undefined,
  kind: ResourceKind,
): Promise<Result> {
  const { listFormat, listColumns } = await import('./list-format.js');
  const format = listFormat(flags);
  const columns = listColumns(flags, format);
  const [{ inSession }, { pages }, { COLUMNS, PLURAL }, { listResult }] = await Promise.all([
    import('../client/session.js'),
    import('../client/operations.js'),
    import('../output/resources.js'),
    import('../output/render.js'),
  ]);
  return listResult({
    kind: 'list',
    pages: inSession(sessionOptions(flags, io), ({ client }) =>
      pages(client, operation, params, { perPage: flags['per-page'], cursor: flags.cursor, all: flags.all }),
    ),
    format,
    table: COLUMNS[kind],
    columns,
    rawCells: flags['raw-cells'],
    empty: `No ${PLURAL[kind]}.`,
    // --all follows every cursor: no hint
    more: flags.all ? undefined : PLURAL[kind],
  });
}
