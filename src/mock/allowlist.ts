// IP allowlists: IPv4 and IPv6 addresses and CIDR ranges. An IPv4-mapped IPv6 address
// (::ffff:10.1.2.3) is the IPv4 address it carries, on either side.
import { BlockList, isIP } from 'node:net';

export interface AllowEntry {
  address: string;
  prefix: number;
  family: 4 | 6;
}

const MAPPED_DOTTED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;
const MAPPED_HEX = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i;

/** The IPv4 form of an IPv4-mapped IPv6 address, else the address unchanged (zone id dropped). */
export function normalizeAddress(address: string): string {
  const bare = address.replace(/%.*$/, '');
  const dotted = MAPPED_DOTTED.exec(bare);
  if (dotted) return dotted[1]!;
  const hex = MAPPED_HEX.exec(bare);
  if (hex) {
    const hi = parseInt(hex[1]!, 16);
    const lo = parseInt(hex[2]!, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return bare;
}

/** Parses one allowlist entry; null when it is neither an address nor a CIDR range. */
export function parseAllowEntry(raw: string): AllowEntry | null {
  if (typeof raw !== 'string' || raw.length > 64) return null;
  const [addrPart, prefixPart, extra] = raw.trim().split('/');
  if (extra !== undefined || !addrPart) return null;
  const isMapped = MAPPED_DOTTED.test(addrPart) || MAPPED_HEX.test(addrPart);
  const address = normalizeAddress(addrPart);
  const family = isIP(address);
  if (family !== 4 && family !== 6) return null;
  const max = family === 4 ? 32 : 128;
  let prefix = max;
  if (prefixPart !== undefined) {
    if (!/^\d{1,3}$/.test(prefixPart)) return null;
    prefix = Number(prefixPart);
    if (isMapped) {
      if (prefix < 96 || prefix > 128) return null;
      prefix -= 96;
    }
    if (prefix > max) return null;
  }
  return { address, prefix, family };
}

/** True when the list is empty (no restriction) or the source address is on it. */
export function isAllowed(entries: readonly string[], source: string | undefined): boolean {
  if (entries.length === 0) return true;
  if (!source) return false;
  const addr = normalizeAddress(source);
  const family = isIP(addr);
  if (family !== 4 && family !== 6) return false;
  const list = new BlockList();
  for (const raw of entries) {
    const e = parseAllowEntry(raw);
    if (!e || e.family !== family) continue;
    list.addSubnet(e.address, e.prefix, e.family === 4 ? 'ipv4' : 'ipv6');
  }
  return list.check(addr, family === 4 ? 'ipv4' : 'ipv6');
}
