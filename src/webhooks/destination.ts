import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Why a destination URL is refused before any connection; undefined when it is acceptable. */
export function urlProblem(raw: string, production: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http or https URL';
  if (production && url.protocol !== 'https:') return 'must use https';
  if (url.username || url.password) return 'must not carry credentials; receivers authenticate requests by their signature';
  const host = hostOf(url);
  if (production && isIP(host) && !isPublicAddress(host)) return 'must not point to a private, loopback or otherwise non-public address';
  return undefined;
}

/** Only globally routable unicast addresses; IPv4-mapped IPv6 is judged as the IPv4 it carries. */
export function isPublicAddress(address: string): boolean {
  try {
    return ipaddr.process(address).range() === 'unicast';
  } catch {
    return false;
  }
}

/** The host of a URL as DNS wants it (IPv6 literals lose their brackets). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export interface Destination {
  address: string;
  family: 4 | 6;
}

export class DestinationError extends Error {
  constructor(readonly code: 'DNS' | 'BLOCKED_DESTINATION', message: string) {
    super(message);
  }
}

/**
 * Resolves the host once; the caller connects to exactly this address, so a DNS answer that changes
 * between the check and the connection (rebinding) cannot redirect the request. With `guard` on
 * (production) every address the name resolves to must be public.
 */
export async function resolveDestination(url: URL, guard: boolean): Promise<Destination> {
  if (guard && url.protocol !== 'https:') throw new DestinationError('BLOCKED_DESTINATION', 'only https destinations are allowed');
  const host = hostOf(url);
  let addresses: { address: string; family: number }[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch (error) {
      throw new DestinationError('DNS', `cannot resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? 'lookup failed'}`);
    }
  }
  const [first] = addresses;
  if (!first) throw new DestinationError('DNS', `${host} has no address`);
  if (guard) {
    const blocked = addresses.find((a) => !isPublicAddress(a.address));
    if (blocked) throw new DestinationError('BLOCKED_DESTINATION', `${host} resolves to the non-public address ${blocked.address}`);
  }
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
