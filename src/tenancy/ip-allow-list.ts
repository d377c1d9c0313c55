import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** An address or CIDR range as a range; a lone address is a range of one. */
function parseEntry(entry: string): Range {
  if (entry.includes('/')) return normalizeRange(ipaddr.parseCIDR(entry));
  const address = normalize(ipaddr.parse(entry));
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

/** IPv4 clients reach a dual-stack socket as ::ffff:a.b.c.d; compare them as IPv4. */
function normalize(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()
    ? (address as ipaddr.IPv6).toIPv4Address()
    : address;
}

function normalizeRange([address, bits]: Range): Range {
  const normalized = normalize(address);
  return normalized === address ? [address, bits] : [normalized, Math.max(0, bits - 96)];
}

/** Index of each entry that is neither an IP address nor a CIDR range. */
export function invalidAllowListEntries(entries: string[]): number[] {
  return entries.flatMap((entry, index) => {
    try {
      parseEntry(entry);
      return [];
    } catch {
      return [index];
    }
  });
}

const parsedLists = new Map<string, Range[]>();

export function isAddressAllowed(sourceIp: string, allowList: string[]): boolean {
  const cacheKey = allowList.join(',');
  let ranges = parsedLists.get(cacheKey);
  if (!ranges) {
    ranges = allowList.map(parseEntry);
    if (parsedLists.size > 10_000) parsedLists.clear();
    parsedLists.set(cacheKey, ranges);
  }
  let source: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    source = normalize(ipaddr.parse(sourceIp));
  } catch {
    return false;
  }
  return ranges.some(([address, bits]) => address.kind() === source.kind() && source.match(address, bits));
}
