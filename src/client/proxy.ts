// Which proxy a request goes through, read from the environment with curl's rules:
// - `https_proxy` for https targets, `http_proxy` for http ones; `all_proxy` when the scheme's
//   own variable is not set. Each in either case, the lowercase one first (curl reads only the
//   lowercase `http_proxy`; PRODUCT.md asks for `HTTP_PROXY` too, see the README).
// - A proxy URL without a scheme is http; without a port, 1080 (curl's default). Only http
//   proxies are supported: https targets go through a CONNECT tunnel, so the signing headers
//   travel inside TLS and the proxy sees only the host and port.
// - `no_proxy` / `NO_PROXY` (lowercase first): entries separated by commas or spaces; `*` alone
//   matches every host; a leading dot is dropped, and an entry matches that host and every
//   host under it (`example.com` and `.example.com` both match api.example.com, not
//   badexample.com); case-insensitive, a trailing dot ignored; the request's port plays no
//   part (an entry with a port matches nothing, as in curl); an IP address entry matches the
//   same address, or a network in CIDR notation (10.0.0.0/8, fd00::/8); IPv6 without brackets.
import { BlockList, isIP } from 'node:net';

export interface ProxyChoice {
  /** the proxy's URL, with any user:password from its userinfo */
  url: URL;
  /** the variable it came from */
  variable: string;
}

export type ProxyDecision = { proxy: ProxyChoice } | { proxy: null; reason: string };

function envFirst(env: NodeJS.ProcessEnv, lower: string): { name: string; value: string } | undefined {
  for (const name of [lower, lower.toUpperCase()]) {
    const value = env[name];
    if (value !== undefined && value !== '') return { name, value };
  }
  return undefined;
}

/** A proxy URL as curl reads it: `host:port` is http, no port is 1080. Throws on what cannot be used. */
export function parseProxyUrl(text: string): URL {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  const url = new URL(withScheme);
  if (url.protocol !== 'http:') throw new Error(`only http:// proxies are supported, not ${url.protocol}//`);
  if (url.port === '') url.port = '1080';
  return url;
}

/** The proxy for display: scheme, host and port, never the user name or password. */
export function showProxy(url: URL): string {
  return `${url.protocol}//${url.host}${url.username || url.password ? ' (with credentials)' : ''}`;
}

const unbracket = (host: string): string => host.replace(/^\[|\]$/g, '');

/** Whether `no_proxy` exempts `host` (a URL's hostname; brackets of an IPv6 literal allowed). */
export function noProxyMatches(host: string, noProxy: string): boolean {
  const list = noProxy.trim();
  if (list === '') return false;
  if (list === '*') return true;
  const name = unbracket(host).toLowerCase().replace(/\.$/, '');
  const family = isIP(name);
  for (const raw of list.split(/[\s,]+/)) {
    let entry = raw.toLowerCase();
    if (entry === '') continue;
    if (family) {
      const slash = entry.indexOf('/');
      const addr = unbracket(slash >= 0 ? entry.slice(0, slash) : entry);
      const entryFamily = isIP(addr);
      if (entryFamily !== family) continue;
      if (slash < 0) {
        if (sameAddress(addr, name, family)) return true;
        continue;
      }
      const bits = Number(entry.slice(slash + 1));
      const max = family === 4 ? 32 : 128;
      if (!/^\d+$/.test(entry.slice(slash + 1)) || bits > max) continue;
      const block = new BlockList();
      block.addSubnet(addr, bits, family === 4 ? 'ipv4' : 'ipv6');
      if (block.check(name, family === 4 ? 'ipv4' : 'ipv6')) return true;
      continue;
    }
    if (entry.startsWith('.')) entry = entry.slice(1);
    entry = entry.replace(/\.$/, '');
    if (entry === '') continue;
    if (name === entry || name.endsWith(`.${entry}`)) return true;
  }
  return false;
}

function sameAddress(a: string, b: string, family: number): boolean {
  const block = new BlockList();
  block.addAddress(a, family === 4 ? 'ipv4' : 'ipv6');
  return block.check(b, family === 4 ? 'ipv4' : 'ipv6');
}

/** The proxy for a target URL, or why there is none. Throws (with the variable named) on an unusable proxy URL. */
export function proxyFor(target: URL, env: NodeJS.ProcessEnv = process.env): ProxyDecision {
  const scheme = target.protocol === 'https:' ? 'https_proxy' : 'http_proxy';
  const chosen = envFirst(env, scheme) ?? envFirst(env, 'all_proxy');
  if (!chosen) return { proxy: null, reason: 'no proxy variable is set' };
  const noProxy = envFirst(env, 'no_proxy');
  if (noProxy && noProxyMatches(target.hostname, noProxy.value))
    return { proxy: null, reason: `${noProxy.name} matches ${unbracket(target.hostname)}` };
  let url: URL;
  try {
    url = parseProxyUrl(chosen.value);
  } catch (err) {
    // the value is never shown: it may hold a password
    throw Object.assign(new Error(`${chosen.name} is not a usable proxy URL: ${(err as Error).message}`), {
      variable: chosen.name,
      code: 'PROXY_URL_INVALID',
    });
  }
  return { proxy: { url, variable: chosen.name } };
}
