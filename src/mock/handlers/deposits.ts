// Funding: deposit addresses (one per network, permanent) and deposits. Live keys only (the
// pipeline answers 403 to test keys before these run).
import { DepositAddressCreateSchema, validationErrors } from '../../contract/requests.js';
import { codeError, ok, page, validation, type Reply } from '../envelope.js';
import { jsonBody, type RequestContext } from '../context.js';
import { isReply, paginate, readPageRequest } from '../pagination.js';
import { addressView, depositView } from '../views.js';
import { newId, randomHex, type RandomSource } from '../random.js';
import { compareUtf8 } from '../../signing/encoding.js';
import { NETWORK_ASSET, type AddressRec } from '../state.js';
import type { Runtime } from '../runtime.js';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export function newAddress(rand: RandomSource, network: string): string {
  if (network === 'trc20') return 'T' + [...rand.bytes(33)].map((b) => BASE58[b % 58]).join('');
  return '0x' + randomHex(rand, 20);
}

export function enabledNetworksText(rt: Runtime): string {
  return rt.state.networks.length ? rt.state.networks.join(', ') : '(none: no network is enabled at the moment)';
}

export function createAddress(ctx: RequestContext): Reply {
  const { rt } = ctx;
  const body = jsonBody(ctx);
  if (isReply(body)) return body;
  const parsed = DepositAddressCreateSchema.safeParse(body);
  const network = parsed.success ? parsed.data.network : undefined;
  if (network === undefined || !rt.state.networks.includes(network)) {
    // a network that existed but was turned off is the operation's refusal, not a typo
    if (network !== undefined && rt.state.known_networks.includes(network)) return codeError('not_enabled');
    // missing or not a string: the schema's own message ("is required." / "must be a string.")
    const schemaMessage = parsed.success ? undefined : validationErrors(parsed.error).network?.[0];
    const what =
      network === undefined
        ? (schemaMessage ?? 'The network is required.')
        : `The network "${network.slice(0, 40)}" is not supported.`;
    return validation({ network: [`${what} Enabled networks: ${enabledNetworksText(rt)}.`] });
  }
  const existing = Object.values(rt.state.addresses).find(
    (a) => a.merchant_id === ctx.merchantId && a.network === network,
  );
  if (existing) return ok(addressView(existing), 200);
  const now = rt.now();
  const address: AddressRec = {
    id: newId(rt.rand, now),
    merchant_id: ctx.merchantId,
    network,
    asset: NETWORK_ASSET,
    address: newAddress(rt.rand, network),
    memo: null,
    created_at: now,
  };
  rt.state.addresses[address.id] = address;
  rt.markDirty();
  return ok(addressView(address), 201);
}

export function listAddresses(ctx: RequestContext): Reply {
  const rows = Object.values(ctx.rt.state.addresses)
    .filter((a) => a.merchant_id === ctx.merchantId)
    .sort((a, b) => compareUtf8(a.network, b.network));
  return ok(rows.map(addressView));
}

export function listDeposits(ctx: RequestContext): Reply {
  const req = readPageRequest('deposits', ctx.query);
  if (isReply(req)) return req;
  const rows = Object.values(ctx.rt.plainState.deposits).filter((d) => d.merchant_id === ctx.merchantId); // a read: no change tracking
  const { data, meta } = paginate('deposits', rows, (d) => [d.confirmed_at ?? d.seen_at, d.seq], req);
  return page(data.map(depositView), meta);
}
