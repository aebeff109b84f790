import type { DynamicModule, Type } from '@nestjs/common';
import { basename, dirname, extname, isAbsolute, join } from 'node:path';
import { EXTENSION_METADATA, ExtensionOptions, MigrationClass } from './extension.decorator';

/** An extension module as LCDS mounts it. */
export interface LoadedExtension {
  /** As written in LCDS_EXTENSIONS. */
  specifier: string;
  name: string;
  module: Type<unknown>;
  migrations: MigrationClass[];
}

/** An extension could not be loaded: the message names it and says what is wrong. */
export class ExtensionLoadError extends Error {
  constructor(
    readonly specifier: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(`Extension "${specifier}" (LCDS_EXTENSIONS) ${problem}`, options);
    this.name = 'ExtensionLoadError';
  }
}

const NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
/** Nest's module metadata keys: a class carrying one of them was decorated with @Module. */
const MODULE_KEYS = ['imports', 'providers', 'controllers', 'exports'];

const loaded = new Map<string, LoadedExtension>();

/**
 * Loads the extensions of LCDS_EXTENSIONS (synchronously, with `require`: the data source's migrations need them before
 * anything starts). Each is loaded once per process. Throws ExtensionLoadError naming the first one that fails.
 */
export function loadExtensions(specifiers: readonly string[]): LoadedExtension[] {
  if (specifiers.length === 0) return [];
  shareHostPackages();
  const extensions = specifiers.map((specifier) => {
    let extension = loaded.get(specifier);
    if (!extension) {
      extension = loadOne(specifier);
      loaded.set(specifier, extension);
    }
    return extension;
  });
  const names = new Map<string, string>();
  for (const e of extensions) {
    const other = names.get(e.name);
    if (other) throw new ExtensionLoadError(e.specifier, `has the name "${e.name}", as "${other}" has: names must differ (they are URL paths, /ext/${e.name}/)`);
    names.set(e.name, e.specifier);
  }
  return extensions;
}

function loadOne(specifier: string): LoadedExtension {
  let exported: unknown;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- an extension is found at run time by its specifier
    exported = require(specifier);
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    const missing = (err as { code?: string }).code === 'MODULE_NOT_FOUND' && reason.includes(`'${specifier}'`);
    throw new ExtensionLoadError(
      specifier,
      missing ? `was not found (${isAbsolute(specifier) ? 'no such file or package folder' : 'install the package next to LCDS, or give an absolute path'})` : `failed while loading: ${reason}`,
      { cause: err },
    );
  }
  const module = nestModuleOf(exported);
  if (!module) {
    throw new ExtensionLoadError(specifier, 'has no default export that is a Nest module (export default a class decorated with @Module)');
  }
  const options = (Reflect.getMetadata(EXTENSION_METADATA, module) as ExtensionOptions | undefined) ?? {};
  const name = options.name ?? defaultName(specifier);
  if (!NAME.test(name)) {
    throw new ExtensionLoadError(specifier, `has the name "${name}": a name is 1 to 63 lower-case letters, digits or '-' (set it with @Extension({ name }))`);
  }
  const migrations = options.migrations ?? [];
  for (const m of migrations) {
    if (typeof m !== 'function' || typeof (m.prototype as { up?: unknown }).up !== 'function') {
      throw new ExtensionLoadError(specifier, 'lists a migration that is not a migration class (a class with up and down methods)');
    }
  }
  return { specifier, name, module, migrations };
}

function nestModuleOf(exported: unknown): Type<unknown> | null {
  const candidates = [(exported as { default?: unknown } | null)?.default, exported];
  for (const candidate of candidates) {
    if (typeof candidate === 'function' && MODULE_KEYS.some((key) => Reflect.hasMetadata(key, candidate))) return candidate as Type<unknown>;
    const dynamic = candidate as Partial<DynamicModule> | null | undefined;
    if (dynamic && typeof dynamic === 'object' && typeof dynamic.module === 'function') return dynamic.module;
  }
  return null;
}

function defaultName(specifier: string): string {
  if (!isAbsolute(specifier)) return specifier.replace(/^@[^/]+\//, '').split('/')[0];
  const base = basename(specifier, extname(specifier));
  return base === 'index' ? basename(dirname(specifier)) : base;
}

let shared = false;

/**
 * An extension gets LCDS's own copies of `lcds/extension` and of the packages whose classes it shares with LCDS
 * (Nest's decorators and DI tokens, TypeORM's, the validators): one copy of each in the process, wherever the
 * extension was installed. Node's CommonJS resolution is asked for those from LCDS's folder instead.
 */
function shareHostPackages(): void {
  if (shared) return;
  shared = true;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- Node's CommonJS loader, patched for one purpose
  const Module = require('node:module') as { _resolveFilename: (request: string, parent: unknown, ...rest: unknown[]) => string };
  const original = Module._resolveFilename;
  const surface = join(__dirname, '..', '..', 'extension', 'index.js');
  const hostParent = { id: __filename, filename: __filename, paths: hostPaths() };
  Module._resolveFilename = function (request: string, parent: unknown, ...rest: unknown[]): string {
    if (request === 'lcds/extension' || request === 'lcds') return surface;
    if (SHARED_PACKAGES.some((p) => request === p || request.startsWith(`${p}/`))) return original.call(this, request, hostParent, ...rest);
    return original.call(this, request, parent, ...rest);
  };
}

const SHARED_PACKAGES = ['@nestjs/common', '@nestjs/core', '@nestjs/typeorm', '@nestjs/swagger', 'typeorm', 'class-validator', 'class-transformer', 'rxjs', 'reflect-metadata'];

function hostPaths(): string[] {
  const paths: string[] = [];
  for (let dir = __dirname; ; dir = dirname(dir)) {
    paths.push(join(dir, 'node_modules'));
    if (dirname(dir) === dir) return paths;
  }
}
