// `invalid_state` says only "not in the card's current state". The state is something the user
// can see, so the refusal is explained from it: the card is read once with the same session
// (as kyc-hint.ts does for kyc_not_approved) and the message says what it is ("card X is
// already frozen") and what would work. Used by the single card commands (src/cli/resources.ts).
import { CardctlError, withHint } from '../errors.js';
import type { ApiClient } from './client.js';
import { callOperation, type OperationCall } from './operations.js';

const CARD_OPERATIONS = new Set(['cards.freeze', 'cards.unfreeze', 'cards.recharge', 'cards.terminate']);

/** The card a refused card operation names when the refusal is `invalid_state`; undefined otherwise. */
export function invalidStateCard(operation: string, call: OperationCall, err: unknown): string | undefined {
  const card = (call.params as { card?: unknown } | undefined)?.card;
  return err instanceof CardctlError &&
    err.code === 'invalid_state' &&
    CARD_OPERATIONS.has(operation) &&
    typeof card === 'string'
    ? card
    : undefined;
}

/** What the refusal means for a card in `status`: the message and what to do; undefined for a state we do not know. */
export function cardStateExplained(
  operation: string,
  id: string,
  status: unknown,
): { message: string; hint: string } | undefined {
  const action = operation.replace('cards.', '');
  switch (status) {
    case 'frozen':
      if (action === 'freeze')
        return {
          message: `card ${id} is already frozen: nothing was changed.`,
          hint: `To let it spend again: \`cardctl cards unfreeze ${id}\`.`,
        };
      return undefined;
    case 'active':
      if (action === 'unfreeze')
        return {
          message: `card ${id} is already active (not frozen): nothing was changed.`,
          hint: `To block spending: \`cardctl cards freeze ${id}\`.`,
        };
      return undefined;
    case 'terminated':
      return {
        message: `card ${id} is ${action === 'terminate' ? 'already ' : ''}terminated: nothing was changed.`,
        hint:
          action === 'terminate'
            ? 'Its balance went back to the wallet when it was terminated.'
            : 'A terminated card cannot be used again: issue a new one (`cardctl cards issue --customer ID --amount MINOR`).',
      };
    case 'expired':
      return {
        message: `card ${id} has expired: nothing was changed.`,
        hint: 'An expired card cannot be used again: issue a new one (`cardctl cards issue --customer ID --amount MINOR`).',
      };
    case 'pending':
      return {
        message: `card ${id} is still pending (being provisioned): nothing was changed.`,
        hint: `Wait until it is active (\`cardctl cards get ${id}\`, or the card.issued webhook), then send the same command again.`,
      };
    case 'failed':
      return {
        message: `card ${id} failed to provision: nothing was changed.`,
        hint: 'Nothing was charged for it: issue a new card (`cardctl cards issue --customer ID --amount MINOR`, with a NEW idempotency key).',
      };
    default:
      return undefined;
  }
}

/** The same refusal, said from the card's state; the original when the read fails or the state says nothing more. */
export async function explainCardState(
  client: ApiClient,
  operation: string,
  id: string,
  err: CardctlError,
): Promise<CardctlError> {
  let status: unknown;
  try {
    const res = await callOperation(client, 'cards.get', { params: { card: id } });
    status = (res.body as { data?: { status?: unknown } } | undefined)?.data?.status;
  } catch {
    return err;
  }
  const said = cardStateExplained(operation, id, status);
  return said ? withHint(err, said.hint, { message: said.message }) : err;
}
