/** Test helper: fixture packages as PackageSources (zips extracted with the `unzip` command into a temp dir). */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, sep } from 'node:path';
import type { PackageSource } from '../../../src/modules/courses/packages/package-types';

import { FIXTURES } from '../../support/fixtures';
export { FIXTURES };
export const PACKAGES_DIR = join(FIXTURES, 'packages');
export const CMI5_SUITE_DIR = join(FIXTURES, 'cmi5-lms-test-suite');
export const SCORM_4ED_MANIFESTS_DIR = join(FIXTURES, 'scorm2004-4ed-test-manifests');

const tempDirs: string[] = [];

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
const extracted = new Map<string, string>();

function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push(relative(dir, full).split(sep).join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

/** A PackageSource over a directory. */
export function directorySource(dir: string): PackageSource {
  const files = listFiles(dir);
  const set = new Set(files);
  return {
    files: () => [...files],
    has: (p) => set.has(p),
    readText: (p) => {
      if (!set.has(p)) return Promise.reject(new Error(`no such file in package: ${p}`));
      return Promise.resolve(stripBom(readFileSync(join(dir, ...p.split('/')), 'utf8')));
    },
  };
}

/** A PackageSource holding in-memory files (path → text). */
export function memorySource(entries: Record<string, string>): PackageSource {
  return {
    files: () => Object.keys(entries),
    has: (p) => p in entries,
    readText: (p) => {
      if (!(p in entries)) return Promise.reject(new Error(`no such file in package: ${p}`));
      return Promise.resolve(stripBom(entries[p]));
    },
  };
}

/** A single uploaded file as the importer keeps it (optionally under another name, e.g. an .xml renamed to cmi5.xml). */
export function singleFileSource(file: string, asName = basename(file)): PackageSource {
  return {
    files: () => [asName],
    has: (p) => p === asName,
    readText: (p) => {
      if (p !== asName) return Promise.reject(new Error(`no such file in package: ${p}`));
      return Promise.resolve(stripBom(readFileSync(file, 'utf8')));
    },
  };
}

/**
 * Extracts a fixture zip (once per test process) and wraps the directory. When the file is not a zip that `unzip` can
 * open, the source holds the raw upload under its own name, as an importer that could not extract it would.
 */
export function fixtureSource(zipPath: string): PackageSource {
  let dir = extracted.get(zipPath);
  if (!dir) {
    dir = mkdtempSync(join(tmpdir(), 'lcds-pkg-'));
    tempDirs.push(dir);
    try {
      execFileSync('unzip', ['-qq', '-o', zipPath, '-d', dir], { stdio: 'pipe' });
    } catch {
      return singleFileSource(zipPath);
    }
    extracted.set(zipPath, dir);
  }
  return directorySource(dir);
}

export function cleanupFixtures(): void {
  for (const d of tempDirs.splice(0)) rmSync(d, { recursive: true, force: true });
  extracted.clear();
}
