// Webhook endpoint URL rules (spec "Endpoint requirements"), one place for registration and
// delivery. Pure: no I/O; the host name lookup is passed in. The address rule follows the IANA
// IPv4 and IPv6 Special-Purpose Address Registries: every block whose "Globally Reachable" is not
// True is refused, plus multicast, the deprecated IPv4-compatible (::/96) and site-local (fec0::/10)
// blocks and anything outside IPv6 global unicast (2000::/3). Addresses that embed an IPv4 one
// (NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by the embedded address. The mock is a local tool:
// a loopback host (localhost, 127.0.0.0/8, ::1) is accepted over http or https on any port.

export const MAX_URL_LENGTH = 2048;
export const MAX_LABEL_LENGTH = 63;
export const MAX_HOSTNAME_LENGTH = 253;

// ---- addresses as integers ----

function parseV4(ip: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return null;
  return ((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!;
}

function parseV6(input: string): bigint | null {
  let ip = input.toLowerCase();
  if (ip.includes('%')) return null; // a zone id names a local interface
  const v4 = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  if (v4) {
    const n = parseV4(v4[2]!);
    if (n === null) return null;
    ip = `${v4[1]}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = ip.split('::');
  if (halves.length > 2) return null;
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  let n = 0n;
  for (const g of all) {
    if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
    n = (n << 16n) | BigInt(parseInt(g, 16));
  }
  return n;
}

function v4Text(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

interface Block<N> {
  base: N;
  bits: number;
  cidr: string;
  name: string;
}

function v4Block(cidr: string, name: string): Block<number> {
  const [a, b] = cidr.split('/');
  return { base: parseV4(a!)!, bits: Number(b), cidr, name };
}

function v6Block(cidr: string, name: string): Block<bigint> {
  const [a, b] = cidr.split('/');
  return { base: parseV6(a!)!, bits: Number(b), cidr, name };
}

const inV4 = (n: number, b: Block<number>): boolean => b.bits === 0 || n >>> (32 - b.bits) === b.base >>> (32 - b.bits);
const inV6 = (n: bigint, b: Block<bigint>): boolean => n >> BigInt(128 - b.bits) === b.base >> BigInt(128 - b.bits);

// ---- the registries ----

/** IPv4 entries whose "Globally Reachable" is True although a larger block is not. */
const V4_REACHABLE = [
  v4Block('192.0.0.9/32', 'Port Control Protocol Anycast'),
  v4Block('192.0.0.10/32', 'TURN Anycast'),
];

const V4_REFUSED = [
  v4Block('0.0.0.0/8', '"this network"'),
  v4Block('10.0.0.0/8', 'private-use'),
  v4Block('100.64.0.0/10', 'shared address space (carrier-grade NAT)'),
  v4Block('127.0.0.0/8', 'loopback'),
  v4Block('169.254.0.0/16', 'link-local'),
  v4Block('172.16.0.0/12', 'private-use'),
  v4Block('192.0.0.0/24', 'IETF protocol assignments'),
  v4Block('192.0.2.0/24', 'documentation (TEST-NET-1)'),
  v4Block('192.88.99.0/24', 'deprecated 6to4 relay anycast'),
  v4Block('192.168.0.0/16', 'private-use'),
  v4Block('198.18.0.0/15', 'benchmarking'),
  v4Block('198.51.100.0/24', 'documentation (TEST-NET-2)'),
  v4Block('203.0.113.0/24', 'documentation (TEST-NET-3)'),
  v4Block('224.0.0.0/4', 'multicast'),
  v4Block('255.255.255.255/32', 'limited broadcast'),
  v4Block('240.0.0.0/4', 'reserved'),
];

/** IPv6 entries whose "Globally Reachable" is True inside 2001::/23 (which is not). */
const V6_REACHABLE = [
  v6Block('2001:1::1/128', 'Port Control Protocol Anycast'),
  v6Block('2001:1::2/128', 'TURN Anycast'),
  v6Block('2001:1::3/128', 'DNS-SD Service Registration Protocol Anycast'),
  v6Block('2001:3::/32', 'AMT'),
  v6Block('2001:4:112::/48', 'AS112-v6'),
  v6Block('2001:20::/28', 'ORCHIDv2'),
  v6Block('2001:30::/28', 'drone remote ID entity tags'),
];

const V6_REFUSED = [
  v6Block('::/128', 'the unspecified address'),
  v6Block('::1/128', 'loopback'),
  v6Block('::ffff:0:0/96', 'IPv4-mapped'),
  v6Block('::/96', 'deprecated IPv4-compatible'),
  v6Block('64:ff9b:1::/48', 'local-use IPv4/IPv6 translation'),
  v6Block('100::/64', 'discard-only'),
  v6Block('100:0:0:1::/64', 'dummy prefix'),
  v6Block('2001::/32', 'Teredo'),
  v6Block('2001:2::/48', 'benchmarking'),
  v6Block('2001:10::/28', 'deprecated ORCHID'),
  v6Block('2001::/23', 'IETF protocol assignments'),
  v6Block('2001:db8::/32', 'documentation'),
  v6Block('3fff::/20', 'documentation'),
  v6Block('5f00::/16', 'segment routing (SRv6) SIDs'),
  v6Block('fc00::/7', 'unique-local'),
  v6Block('fec0::/10', 'deprecated site-local'),
  v6Block('fe80::/10', 'link-local'),
  v6Block('ff00::/8', 'multicast'),
];

const NAT64 = v6Block('64:ff9b::/96', 'IPv4/IPv6 translation (NAT64)');
const SIX_TO_FOUR = v6Block('2002::/16', '6to4');
const GLOBAL_UNICAST = v6Block('2000::/3', 'global unicast');

function v4Problem(n: number): string | null {
  if (V4_REACHABLE.some((b) => inV4(n, b))) return null;
  const b = V4_REFUSED.find((x) => inV4(n, x));
  return b ? `is in ${b.cidr} (${b.name})` : null;
}

function v6Problem(n: bigint): string | null {
  if (inV6(n, NAT64) || inV6(n, SIX_TO_FOUR)) {
    const block = inV6(n, NAT64) ? NAT64 : SIX_TO_FOUR;
    const embedded = Number(block === NAT64 ? n & 0xffff_ffffn : (n >> 80n) & 0xffff_ffffn);
    const inner = v4Problem(embedded);
    return inner ? `is in ${block.cidr} (${block.name}) and carries ${v4Text(embedded)}, which ${inner}` : null;
  }
  if (V6_REACHABLE.some((b) => inV6(n, b))) return null;
  const b = V6_REFUSED.find((x) => inV6(n, x));
  if (b) return `is in ${b.cidr} (${b.name})`;
  return inV6(n, GLOBAL_UNICAST) ? null : 'is outside 2000::/3 (IPv6 global unicast)';
}

/**
 * Why the address (IPv4 dotted or IPv6 text, no brackets) may not receive webhooks, or null when it
 * is globally reachable. Text that is not an address is refused.
 */
export function addressProblem(ip: string): string | null {
  const v4 = parseV4(ip);
  const why = v4 !== null ? v4Problem(v4) : ((n) => (n === null ? 'is not an IP address' : v6Problem(n)))(parseV6(ip));
  return why ? `${ip} ${why}: a private or reserved address, not globally reachable` : null;
}

export function isLoopbackAddress(ip: string): boolean {
  const v4 = parseV4(ip);
  if (v4 !== null) return v4 >>> 24 === 127;
  const n = parseV6(ip);
  if (n === null) return false;
  return n === 1n || (n >> 32n === 0xffffn && Number(n & 0xffff_ffffn) >>> 24 === 127); // ::1, ::ffff:127.x.x.x
}

const bare = (host: string) =>
  host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
const isAddress = (h: string) => parseV4(h) !== null || parseV6(h) !== null;

/** `localhost` or a loopback address; an IPv6 host may come in URL brackets (`[::1]`). */
export function isLoopbackHost(host: string): boolean {
  const h = bare(host);
  return h === 'localhost' || (isAddress(h) && isLoopbackAddress(h));
}

/** Names that never resolve to a public address (single labels, local-use suffixes). */
export function isNonPublicName(host: string): boolean {
  const h = bare(host);
  return !h.includes('.') || /\.(local|localhost|internal|lan|home\.arpa|intranet|corp|private)$/.test(h);
}

// ---- the URL ----

export type UrlCheck =
  | { ok: true; url: string; host: string; loopback: boolean; address: boolean }
  | { ok: false; problem: string };

const refuse = (problem: string): UrlCheck => ({ ok: false, problem });
const LOCAL_HINT = '(or a loopback address such as http://127.0.0.1:PORT/ for a local receiver)';

/** The problem with a host name's spelling (after WHATWG normalization), or null. */
function nameProblem(host: string): string | null {
  const h = host.replace(/\.$/, '');
  for (const label of h.split('.')) {
    if (label.length === 0) return "The url's host name has an empty label (two dots in a row, or a leading dot).";
    if (label.length > MAX_LABEL_LENGTH)
      return `The url's host name has a label of ${label.length} characters: a DNS label holds at most ${MAX_LABEL_LENGTH}.`;
    if (!/^[a-z0-9_-]+$/.test(label))
      return "The url's host name holds a character a DNS name cannot: use letters, digits and hyphens.";
  }
  if (h.length > MAX_HOSTNAME_LENGTH)
    return `The url's host name is ${h.length} characters long: a DNS name holds at most ${MAX_HOSTNAME_LENGTH}.`;
  return null;
}

/**
 * The rules that need no lookup: a string URL without control characters, http(s), no userinfo, a
 * well-formed host; https on port 443 unless the host is loopback; a literal address that is
 * globally reachable. The URL given back is the normalized one (WHATWG), the one stored and listed.
 */
export function checkEndpointUrl(raw: unknown): UrlCheck {
  if (typeof raw !== 'string' || raw === '')
    return refuse('The url is required: an https URL (or http on a loopback address).');
  if (raw.length > MAX_URL_LENGTH)
    return refuse(`The url is ${raw.length} characters long: at most ${MAX_URL_LENGTH}.`);
  if (/[\p{Cc}\u2028\u2029]/u.test(raw))
    return refuse('The url must not contain control characters (a line break, tab or other invisible character).');
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return refuse('The url must be an absolute URL such as https://example.com/webhooks.');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:')
    return refuse('The url must use https (http is accepted on a loopback address only).');
  if (u.username || u.password) return refuse('The url must not carry a user name or password.');
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const address = isAddress(host);
  if (!address) {
    const problem = nameProblem(host);
    if (problem) return refuse(problem);
  }
  const loopback = isLoopbackHost(host);
  if (u.href.length > MAX_URL_LENGTH)
    return refuse(`The url is ${u.href.length} characters long once normalized: at most ${MAX_URL_LENGTH}.`);
  const accepted: UrlCheck = { ok: true, url: u.href, host, loopback, address };
  if (loopback) return accepted;
  if (u.protocol !== 'https:') return refuse('The url must use https (http is accepted on a loopback address only).');
  if (u.port !== '' && u.port !== '443')
    return refuse('The url must use port 443 (any port is accepted on a loopback address).');
  if (address) {
    const problem = addressProblem(host);
    if (problem) return refuse(`The url's host ${problem}: use a public host ${LOCAL_HINT}.`);
    return accepted;
  }
  if (isNonPublicName(host))
    return refuse(`The url must name a public host, not the local name ${host} ${LOCAL_HINT}.`);
  return accepted;
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has (node:dns lookup with all: true); rejects with the resolver's error. */
export type HostLookup = (host: string) => Promise<ResolvedAddress[]>;

/**
 * The addresses a checked host may be reached at, every one allowed, or the problem: a name that
 * does not resolve, or one address that is not globally reachable (a loopback name: one that is not
 * loopback). Used at registration, and at each delivery before the address is pinned.
 */
export async function resolveHost(
  host: string,
  loopback: boolean,
  lookup: HostLookup,
): Promise<{ ok: true; addresses: ResolvedAddress[] } | { ok: false; problem: string }> {
  if (isAddress(host)) {
    const problem = loopback
      ? isLoopbackAddress(host)
        ? null
        : `${host} is not a loopback address`
      : addressProblem(host);
    return problem
      ? { ok: false, problem }
      : { ok: true, addresses: [{ address: host, family: parseV4(host) !== null ? 4 : 6 }] };
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await lookup(host);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOTFOUND' || code === 'ENODATA'
        ? 'no such name'
        : code === 'ETIMEOUT'
          ? 'no answer in time'
          : (code ?? (err as Error).message);
    return { ok: false, problem: `The url's host ${host} does not resolve (${why}): check the name.` };
  }
  if (addresses.length === 0)
    return { ok: false, problem: `The url's host ${host} does not resolve (no address): check the name.` };
  for (const a of addresses) {
    const problem = loopback
      ? isLoopbackAddress(a.address)
        ? null
        : `${a.address} is not a loopback address`
      : addressProblem(a.address);
    if (problem)
      return { ok: false, problem: `The url's host ${host} resolves to ${problem}: use a public host ${LOCAL_HINT}.` };
  }
  return { ok: true, addresses };
}

/** Registration's verdict: the static rules, then every address the host resolves to. */
export async function endpointUrlVerdict(raw: unknown, lookup: HostLookup): Promise<UrlCheck> {
  const checked = checkEndpointUrl(raw);
  if (!checked.ok) return checked;
  const resolved = await resolveHost(checked.host, checked.loopback, lookup);
  return resolved.ok ? checked : refuse(resolved.problem);
}
