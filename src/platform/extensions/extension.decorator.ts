import 'reflect-metadata';

/** A class with `up`/`down` (TypeORM's MigrationInterface): an extension's own tables. */
export type MigrationClass = new () => { up(queryRunner: never): Promise<unknown>; down(queryRunner: never): Promise<unknown>; name?: string };

export interface ExtensionOptions {
  /**
   * The extension's name: its routes are served under /ext/{name}/. Lower-case letters, digits and '-'. Defaults to
   * the npm package's name without its scope (or the file's or folder's name for an absolute path).
   */
  name?: string;
  /**
   * The extension's migrations, run with LCDS's (at start, and by `lcds migrate`), recorded in the same table: class
   * names must be unique across LCDS and every extension (prefix them with the extension's name).
   */
  migrations?: MigrationClass[];
}

export const EXTENSION_METADATA = 'lcds:extension';

/** Declares what LCDS needs to know of an extension's Nest module (its default export) before it starts it. */
export function Extension(options: ExtensionOptions): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(EXTENSION_METADATA, options, target);
  };
}
