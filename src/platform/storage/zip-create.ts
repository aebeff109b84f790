import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { ContentStore, normalizePrefix } from './content-store';

/** Already-compressed formats: stored as they are, deflating them again only costs CPU. */
const STORE_UNCOMPRESSED = /\.(zip|jar|gz|tgz|bz2|xz|7z|rar|png|jpe?g|gif|webp|avif|mp3|m4a|aac|ogg|oga|opus|mp4|m4v|webm|mov|avi|mkv|woff2?|pdf|swf)$/i;

/**
 * A zip archive of every object under `prefix` (paths inside the zip relative to it), produced as a stream:
 * the listing is paged and each object is opened only when the archive reaches it, so neither the files nor the
 * archive are ever held in memory. Destroying the returned stream stops the work. Zip64 is used when needed.
 */
export function zipPrefix(store: ContentStore, prefix: string): Readable {
  const folder = normalizePrefix(prefix);
  const zip = new ZipFile();
  const output = zip.outputStream as unknown as Readable;
  const open = new Set<Readable>();
  let stopped = false;
  const fail = (error: unknown) => {
    if (stopped) return;
    stopped = true;
    for (const stream of open) stream.destroy();
    output.destroy(error instanceof Error ? error : new Error(String(error)));
  };
  zip.on('error', fail);
  output.once('close', () => {
    stopped = true;
    for (const stream of open) stream.destroy(); // the consumer went away: release files / S3 connections
  });

  void (async () => {
    for await (const item of store.list(folder)) {
      if (stopped) return;
      const path = item.key.slice(folder.length);
      zip.addReadStreamLazy(
        path,
        { size: item.size, mtime: item.modified, compress: !STORE_UNCOMPRESSED.test(path) },
        (callback: (error: unknown, stream: NodeJS.ReadableStream) => void) => {
          if (stopped) return;
          store.get(item.key).then(
            (object) => {
              if (!object) return fail(new Error(`${item.key} disappeared while it was being zipped`));
              if (stopped) return object.stream.destroy();
              open.add(object.stream);
              object.stream.once('close', () => open.delete(object.stream));
              object.stream.once('error', fail);
              callback(null, object.stream);
            },
            fail,
          );
        },
      );
    }
    if (!stopped) zip.end();
  })().catch(fail);

  return output;
}
