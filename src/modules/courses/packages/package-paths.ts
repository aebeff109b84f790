/** Paths and URLs inside packages: resolving manifest references against the package's files. */
import type { PackageSource } from './package-types';

/** `http:`, `https:`, `mailto:`… or protocol-relative `//host/…` (not a Windows drive letter `C:\`). */
export function isAbsoluteUrl(ref: string): boolean {
  return /^[a-zA-Z][a-zA-Z0-9+.-]+:/.test(ref) || ref.startsWith('//');
}

export function splitUrl(ref: string): { path: string; query?: string; fragment?: string } {
  let rest = ref;
  let fragment: string | undefined;
  const h = rest.indexOf('#');
  if (h >= 0) {
    fragment = rest.slice(h + 1);
    rest = rest.slice(0, h);
  }
  let query: string | undefined;
  const q = rest.indexOf('?');
  if (q >= 0) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  return { path: rest, query, fragment };
}

/** Normalizes a relative path: backslashes to slashes, drops `.` segments and resolves `..`; null when it escapes the package. */
export function normalizePath(path: string): string | null {
  const out: string[] = [];
  for (const seg of path.replace(/\\/g, '/').split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length === 0) return null;
      out.pop();
    } else out.push(seg);
  }
  return out.join('/');
}

/**
 * Combines `xml:base` values and a reference (IMS CP: manifest, resources and resource bases apply in turn). A base is
 * taken as a directory even without a trailing slash (what authoring tools mean by it). Absolute URLs win.
 */
export function combineRef(bases: (string | undefined)[], ref: string): string {
  let acc = '';
  for (const b of [...bases, ref]) {
    if (b === undefined || b === '') continue;
    if (isAbsoluteUrl(b)) {
      acc = b;
      continue;
    }
    if (isAbsoluteUrl(acc)) {
      try {
        acc = new URL(b, acc.endsWith('/') ? acc : acc + '/').href;
      } catch {
        acc = acc.replace(/\/?$/, '/') + b;
      }
      continue;
    }
    if (b.startsWith('/')) {
      acc = b;
      continue;
    }
    acc = acc === '' ? b : acc.replace(/\/?$/, '/') + b;
  }
  return acc;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The package file a local href points at (query/fragment removed, percent-decoding applied), or null when not local. */
export function packagePathOf(href: string): string | null {
  if (isAbsoluteUrl(href) || href.startsWith('/')) return null;
  const { path } = splitUrl(href);
  if (path.trim() === '') return null;
  return normalizePath(safeDecode(path));
}

const lowerIndexCache = new WeakMap<PackageSource, Map<string, string>>();

/** A file that exists under another letter case, to help authors fix a reference ("Index.html" vs "index.html"). */
export function caseInsensitiveMatch(source: PackageSource, path: string): string | undefined {
  let idx = lowerIndexCache.get(source);
  if (!idx) {
    idx = new Map();
    for (const f of source.files()) if (!idx.has(f.toLowerCase())) idx.set(f.toLowerCase(), f);
    lowerIndexCache.set(source, idx);
  }
  return idx.get(path.toLowerCase());
}

export type FileCheck = { ok: true; path: string } | { ok: false; path: string | null; reason: string };

/** Checks that a local href names a file in the package. Absolute URLs are not checked. */
export function checkLocalHref(source: PackageSource, href: string): FileCheck | undefined {
  if (isAbsoluteUrl(href)) return undefined;
  if (href.startsWith('/')) {
    return { ok: false, path: null, reason: `"${href}" is a server-absolute path; files in a package must be referenced by relative paths` };
  }
  const path = packagePathOf(href);
  if (path === null) {
    const { path: p } = splitUrl(href);
    return { ok: false, path: null, reason: p.trim() === '' ? `"${href}" names no file` : `"${href}" points outside the package` };
  }
  if (source.has(path)) return { ok: true, path };
  const other = caseInsensitiveMatch(source, path);
  const hint = other ? ` (the package has "${other}"; file names are case-sensitive)` : '';
  return { ok: false, path, reason: `the file "${path}" is not in the package${hint}` };
}

export function basename(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? path : path.slice(i + 1);
}

export function extensionOf(path: string): string {
  const b = basename(path);
  const i = b.lastIndexOf('.');
  return i <= 0 ? '' : b.slice(i + 1).toLowerCase();
}

/** Files that are junk from archivers (macOS resource forks, Finder/Explorer metadata). */
export function isJunkFile(path: string): boolean {
  return /(^|\/)__MACOSX\//.test(path) || /(^|\/)(\.DS_Store|Thumbs\.db|desktop\.ini)$/i.test(path);
}
