import type { IncomingMessage } from 'node:http';

/**
 * The client's address as Express's `req.ip` gives it under the app's setting: with LCDS_TRUST_PROXY (Express's
 * `trust proxy` true) the leftmost X-Forwarded-For entry, else the socket's peer. For routes served outside Express
 * (the commit endpoint) as well as inside. IPv4-mapped IPv6 addresses are written as IPv4.
 */
export function clientAddressOf(req: IncomingMessage, trustProxy: boolean): string {
  let address = req.socket.remoteAddress ?? '';
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).split(',')[0].trim();
    if (first) address = first;
  }
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}
