// Merchants and API keys: create a merchant (with its two keys), create, roll, rotate, revoke a key.
import { SCOPES } from '../../contract/routes.js';
import { fail, ok, type Reply } from '../envelope.js';
import { isReply } from '../pagination.js';
import { DAY, isoOrNull } from '../clock.js';
import { parseAllowEntry } from '../allowlist.js';
import { newSecret, cryptoRandom } from '../random.js';
import { addKey, addMerchant, MODES, type KeyRec, type Mode } from '../state.js';
import type { Runtime } from '../runtime.js';
import { Input, MAX_ADVANCE_SECONDS, merchantOf, notFoundThing, type ControlRequest } from './request.js';

export const ROLL_OVERLAP_MS = DAY;

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

export function createKey({ rt, body }: ControlRequest): Reply {
  const input = new Input(body);
  const mode = input.oneOf<Mode>('mode', MODES);
  const scopes = input.stringList(
    'scopes',
    (s) => (SCOPES as readonly string[]).includes(s),
    `must be a list of scopes among ${SCOPES.join(', ')}.`,
  );
  const allow = input.stringList(
    'ip_allowlist',
    (s) => parseAllowEntry(s) !== null,
    'must be a list of IPv4 or IPv6 addresses or CIDR ranges.',
  );
  // optional: the key stops working (401 invalid_api_key) this many simulated seconds from now
  const expiresIn = input.has('expires_in_seconds')
    ? input.integer('expires_in_seconds', 1, MAX_ADVANCE_SECONDS)
    : undefined;
  const bad = input.fail();
  if (bad) return bad;
  const merchant = merchantOf(rt, body);
  if (isReply(merchant)) return merchant;
  const now = rt.now();
  const expiresAt = expiresIn === undefined ? null : now + expiresIn * 1000;
  const key = addKey(rt.state, cryptoRandom, now, {
    merchant_id: merchant,
    mode: mode!,
    scopes,
    ip_allowlist: allow,
    expires_at: expiresAt,
  });
  rt.redactor.add([key.secret]);
  rt.markDirty();
  return ok(keyView(key), 201);
}

export function rollKey({ rt, params }: ControlRequest): Reply {
  const key = keyOf(rt, params[0]!);
  if (isReply(key)) return key;
  key.previous_secret = key.secret;
  key.previous_secret_until = rt.now() + ROLL_OVERLAP_MS;
  key.secret = newSecret(cryptoRandom);
  rt.redactor.add([key.secret]);
  rt.markDirty();
  return ok({ key_id: key.key_id, secret: key.secret });
}

export function rotateKey({ rt, params }: ControlRequest): Reply {
  const old = keyOf(rt, params[0]!);
  if (isReply(old)) return old;
  const key = addKey(rt.state, cryptoRandom, rt.now(), {
    merchant_id: old.merchant_id,
    mode: old.mode,
    scopes: old.scopes,
    ip_allowlist: old.ip_allowlist,
  });
  rt.redactor.add([key.secret]);
  rt.markDirty();
  return ok(keyView(key), 201);
}

export function revokeKey({ rt, params }: ControlRequest): Reply {
  const key = Object.hasOwn(rt.state.keys, params[0]!) ? rt.state.keys[params[0]!] : undefined;
  if (!key) return notFoundThing('Key');
  key.revoked = true;
  key.revoked_at ??= rt.now();
  rt.markDirty();
  return ok({ key_id: key.key_id, revoked: true });
}

export function createMerchant({ rt }: ControlRequest): Reply {
  const { merchant, test, live } = addMerchant(rt.state, cryptoRandom, rt.now());
  rt.redactor.add([test.secret, live.secret, merchant.webhook_secret]);
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
