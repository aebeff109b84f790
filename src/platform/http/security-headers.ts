import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/**
 * Security headers of what LCDS serves. Every response: `X-Content-Type-Options: nosniff`. API and LRS answers
 * (which carry secret keys, tokens and learners' data): `Cache-Control: no-store` unless the handler says
 * otherwise. Pages set a Content-Security-Policy of their own (`pageHeaders`).
 */
export function setBaseSecurityHeaders(url: string, res: ServerResponse, apiPrefixes: readonly string[]): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  for (const prefix of apiPrefixes) {
    if (url.startsWith(prefix)) {
      res.setHeader('Cache-Control', 'no-store');
      return;
    }
  }
}

/** A fresh nonce for a page's inline script. */
export function scriptNonce(): string {
  return randomBytes(16).toString('base64');
}

export type CspDirectives = Record<string, string[]>;

export function cspHeader(directives: CspDirectives): string {
  return Object.entries(directives)
    .map(([name, sources]) => [name, ...sources].join(' '))
    .join('; ');
}

/**
 * Headers of an HTML page: its policy, no referrer (launch and session URLs carry tokens), no caching. `framing`
 * says who may frame it: `any` (the player, which LMSs and dispatch packages embed), `self`, or `none` (the
 * console: no other site may frame it to trick an operator into clicks). `X-Frame-Options` repeats the last two for
 * browsers that do not read `frame-ancestors`.
 */
export function pageHeaders(res: { setHeader(name: string, value: string): unknown }, directives: CspDirectives, framing: 'any' | 'self' | 'none'): void {
  res.setHeader('Content-Security-Policy', cspHeader({ ...directives, 'frame-ancestors': [framing === 'any' ? '*' : framing === 'self' ? "'self'" : "'none'"] }));
  if (framing !== 'any') res.setHeader('X-Frame-Options', framing === 'self' ? 'SAMEORIGIN' : 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Content-Type-Options', 'nosniff');
}

/** The origin of an absolute http(s) URL as a CSP source, or null. */
export function originSource(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch {
    return null;
  }
}
