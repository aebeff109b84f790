/**
 * Media courses: a single PDF, audio or video file imported as a one-page course. SCORM Cloud reports these with the
 * learning standard `UNKNOWN`; the player needs `packageData.media` to render them.
 */
import { basename, extensionOf } from './package-paths';
import { PackageError, type PackageSource, type ParsedPackage } from './package-types';

export type MediaKind = 'pdf' | 'video' | 'audio';

const MEDIA_TYPES: Record<string, { kind: MediaKind; contentType: string }> = {
  pdf: { kind: 'pdf', contentType: 'application/pdf' },
  mp4: { kind: 'video', contentType: 'video/mp4' },
  m4v: { kind: 'video', contentType: 'video/mp4' },
  webm: { kind: 'video', contentType: 'video/webm' },
  ogv: { kind: 'video', contentType: 'video/ogg' },
  mov: { kind: 'video', contentType: 'video/quicktime' },
  mp3: { kind: 'audio', contentType: 'audio/mpeg' },
  m4a: { kind: 'audio', contentType: 'audio/mp4' },
  aac: { kind: 'audio', contentType: 'audio/aac' },
  wav: { kind: 'audio', contentType: 'audio/wav' },
  oga: { kind: 'audio', contentType: 'audio/ogg' },
  ogg: { kind: 'audio', contentType: 'audio/ogg' },
  opus: { kind: 'audio', contentType: 'audio/ogg' },
  flac: { kind: 'audio', contentType: 'audio/flac' },
};

export function mediaTypeOf(fileName: string, contentType?: string): { kind: MediaKind; contentType: string } | undefined {
  const byExt = MEDIA_TYPES[extensionOf(fileName)];
  if (byExt) return byExt;
  const ct = contentType?.split(';')[0].trim().toLowerCase();
  if (!ct) return undefined;
  if (ct === 'application/pdf') return { kind: 'pdf', contentType: ct };
  if (ct.startsWith('video/')) return { kind: 'video', contentType: ct };
  if (ct.startsWith('audio/')) return { kind: 'audio', contentType: ct };
  return undefined;
}

export function parseMedia(source: PackageSource, file: string, contentType?: string): Promise<ParsedPackage> {
  return Promise.resolve().then(() => parseMediaSync(source, file, contentType));
}

function parseMediaSync(source: PackageSource, file: string, contentType?: string): ParsedPackage {
  const media = mediaTypeOf(file, contentType);
  if (!media || !source.has(file)) {
    throw new PackageError(`"${file}" is not a media file LCDS can import as a course (PDF, MP4/WebM/MOV video, MP3/M4A/WAV/OGG/FLAC audio)`);
  }
  const title = basename(file).replace(/\.[^.]*$/, '').replace(/[_]+/g, ' ').trim() || basename(file);
  return {
    standard: 'UNKNOWN',
    title,
    metadata: { title },
    rootActivity: { externalIdentifier: file, itemIdentifier: file, activityType: 'ASSET', href: file, title, children: [] },
    launchables: [{ id: file, title, href: file, data: { media: { kind: media.kind, file, contentType: media.contentType } } }],
    packageData: { media: { kind: media.kind, file, contentType: media.contentType } },
    warnings: [],
    courseLanguages: [],
  };
}
