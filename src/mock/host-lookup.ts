// The system resolver for webhook endpoint hosts (registration and delivery), bounded in time:
// a resolver that never answers must not hold a control call or a delivery forever.
import dns from 'node:dns';
import type { HostLookup, ResolvedAddress } from './endpoint-url.js';

export const LOOKUP_TIMEOUT_MS = 5_000;

export const systemLookup: HostLookup = (host) =>
  new Promise<ResolvedAddress[]>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(Object.assign(new Error(`no answer for ${host}`), { code: 'ETIMEOUT' })),
      LOOKUP_TIMEOUT_MS,
    );
    timer.unref();
    dns.lookup(host, { all: true, verbatim: true }, (err, addresses) => {
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(addresses.map((a) => ({ address: a.address, family: a.family })));
    });
  });
