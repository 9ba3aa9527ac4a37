// The rule a webhook endpoint URL must meet to be registered (control plane, startMock's
// webhookUrls, `cardctl mock start --webhook-url`).
import { isIP } from 'node:net';
import { isLoopbackHost, isNonPublicName, isReservedAddress } from './webhooks.js';

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
