import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Config } from '../config';

/**
 * What a deployment lets webhooks reach. Non-public destinations are refused in every mode (a
 * tenant must not make the service call into its own network); only an operator's explicit
 * PICKPORT_WEBHOOK_ALLOW_PRIVATE lifts that, for local development and tests.
 */
export interface DestinationPolicy {
  httpsOnly: boolean;
  allowPrivate: boolean;
}

export const destinationPolicy = (config: Pick<Config, 'nodeEnv' | 'webhookAllowPrivate'>): DestinationPolicy => ({
  httpsOnly: config.nodeEnv === 'production',
  allowPrivate: config.webhookAllowPrivate,
});

/** The setting that lets webhooks reach such addresses, named wherever one is refused. */
const ALLOW_PRIVATE_SETTING = 'PICKPORT_WEBHOOK_ALLOW_PRIVATE=true';
const NON_PUBLIC =
  'must not point to a private, loopback or otherwise non-public address; ' +
  `the service's operator can allow such destinations with ${ALLOW_PRIVATE_SETTING} (for local development, never where tenants are not trusted)`;

/** Why a destination URL is refused before any connection; undefined when it is acceptable. */
export function urlProblem(raw: string, policy: DestinationPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http or https URL';
  if (policy.httpsOnly && url.protocol !== 'https:') return 'must use https';
  if (url.username || url.password) return 'must not carry credentials; receivers authenticate requests by their signature';
  if (policy.allowPrivate) return undefined;
  const host = hostOf(url);
  if (isIP(host) ? !isPublicAddress(host) : isLocalName(host)) return NON_PUBLIC;
  return undefined;
}

/** `localhost` and its subdomains always name the machine itself (RFC 6761), whatever DNS says. */
function isLocalName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/**
 * Only globally routable unicast addresses. IPv6 must be global unicast (2000::/3 outside the
 * special ranges), which also closes the IPv4-compatible `::a.b.c.d` forms; IPv4-mapped and NAT64
 * addresses are judged as the IPv4 address they carry (DNS64 networks reach public hosts through
 * NAT64). 6to4 and Teredo tunnel addresses are refused.
 */
export function isPublicAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.match(NAT64_WELL_KNOWN)) return isPublicAddress(ipaddr.fromByteArray(v6.toByteArray().slice(12)).toString());
  return v6.match(GLOBAL_UNICAST_V6) && v6.range() === 'unicast';
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
 * between the check and the connection (rebinding) cannot redirect the request. Unless the policy
 * allows private destinations, every address the name resolves to must be public.
 */
export async function resolveDestination(url: URL, policy: DestinationPolicy): Promise<Destination> {
  if (policy.httpsOnly && url.protocol !== 'https:') throw new DestinationError('BLOCKED_DESTINATION', 'only https destinations are allowed');
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
  if (!policy.allowPrivate) {
    const blocked = addresses.find((a) => !isPublicAddress(a.address));
    if (blocked) {
      throw new DestinationError('BLOCKED_DESTINATION', `${host} resolves to the non-public address ${blocked.address} (allowed only with ${ALLOW_PRIVATE_SETTING})`);
    }
  }
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
