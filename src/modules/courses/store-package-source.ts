import { ContentStore } from '../../platform/storage/content-store';
import { PackageError, PackageSource } from './packages/package-types';

const MAX_TEXT_BYTES = 20 * 1024 * 1024;

/** A package's files as the parsers see them, read from the content store under the version's prefix. */
export class StorePackageSource implements PackageSource {
  private readonly paths: Set<string>;

  constructor(
    private readonly store: ContentStore,
    private readonly prefix: string,
    files: string[],
  ) {
    this.paths = new Set(files);
  }

  files(): string[] {
    return [...this.paths];
  }

  has(path: string): boolean {
    return this.paths.has(path);
  }

  async readText(path: string): Promise<string> {
    const object = this.paths.has(path) ? await this.store.get(`${this.prefix}${path}`) : null;
    if (!object) throw new PackageError(`The package has no file '${path}'`);
    if (object.size > MAX_TEXT_BYTES) {
      object.stream.destroy();
      throw new PackageError(`'${path}' is larger than ${MAX_TEXT_BYTES} bytes`);
    }
    const chunks: Buffer[] = [];
    for await (const chunk of object.stream as AsyncIterable<Buffer>) chunks.push(chunk);
    return Buffer.concat(chunks).toString('utf8').replace(/^\uFEFF/, '');
  }
}
