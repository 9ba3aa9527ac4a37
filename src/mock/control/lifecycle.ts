// Forcing the asynchronous outcomes: a customer's KYC verdict, a pending card's provisioning.
import { codeError, ok, type Reply } from '../envelope.js';
import { cardView, customerView } from '../views.js';
import { decide, settleCustomer } from '../kyc.js';
import { finishProvisioning } from '../card-lifecycle.js';
import { Input, notFoundThing, type ControlRequest } from './request.js';

export function forceKyc({ rt, body, params }: ControlRequest): Reply {
  const input = new Input(body);
  const verdict = input.oneOf('verdict', ['approved', 'rejected'] as const);
  const reason = input.string(
    'reason',
    /^[\w .:-]{1,100}$/,
    'must be a short label (letters, digits, _ . : -), at most 100 characters.',
    true,
  );
  const bad = input.fail();
  if (bad) return bad;
  const c = Object.hasOwn(rt.state.customers, params[0]!) ? rt.state.customers[params[0]!] : undefined;
  if (!c) return notFoundThing('Customer');
  settleCustomer(rt, c);
  decide(rt, c, verdict!, reason);
  return ok(customerView(c));
}

export function provision({ rt, body, params }: ControlRequest): Reply {
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
