/**
 * Detects a package's learning standard from its files and parses it:
 *  imsmanifest.xml → SCORM 1.2 / 2004 · cmi5.xml → cmi5 · tincan.xml → xAPI · .crs/.au/.des/.cst → AICC ·
 *  a single PDF/audio/video file → media course (standard UNKNOWN) · a single XML file whose root is
 *  <courseStructure> → standalone cmi5 course structure.
 * Manifests must be at the top level of the package; one found in a folder gets a message saying how to re-zip.
 */
import { findAiccFiles, looksLikeAicc, parseAicc } from './aicc-parser';
import { findCmi5Manifest, parseCmi5, CMI5_MANIFEST } from './cmi5-parser';
import { mediaTypeOf, parseMedia } from './media-parser';
import { basename, extensionOf, isJunkFile } from './package-paths';
import { PackageError, type PackageSource, type ParsedPackage } from './package-types';
import { parsePackageXml } from './package-xml';
import type { PackageHint, ParseOptions } from './parse-options';
import { findScormManifest, parseScorm } from './scorm-parser';
import { findXapiManifest, parseXapi } from './xapi-parser';

export const NO_MANIFEST_MESSAGE =
  'No course manifest found: a SCORM package needs imsmanifest.xml at the top level of the zip; an xAPI package needs tincan.xml; a cmi5 package needs cmi5.xml; AICC needs .crs/.au/.des/.cst files';

export type { PackageHint, ParseOptions } from './parse-options';

export async function parsePackage(source: PackageSource, hint: PackageHint = {}, options: ParseOptions = {}): Promise<ParsedPackage> {
  const files = source.files().filter((f) => !isJunkFile(f));
  if (files.length === 0) {
    throw new PackageError(`The package is empty${hint.fileName ? ` ("${hint.fileName}" contains no files)` : ''}. ${NO_MANIFEST_MESSAGE}`);
  }
  const uploadedXml = !!hint.fileName && extensionOf(hint.fileName) === 'xml';

  if (findScormManifest(source)) return parseScorm(source, options);
  if (findCmi5Manifest(source)) {
    return parseCmi5(source, { ...options, ...(uploadedXml ? { standalone: true } : {}) });
  }
  if (findXapiManifest(source)) return parseXapi(source, options);
  if (looksLikeAicc(source)) return parseAicc(source, options);
  const aicc = findAiccFiles(source);
  if (aicc.au || aicc.des || aicc.cst) return parseAicc(source, options); // names the AICC files that are missing

  if (files.length === 1) {
    const file = files[0];
    const ext = extensionOf(file);
    if (mediaTypeOf(file, ext ? undefined : hint.contentType)) return parseMedia(source, file, hint.contentType);
    if (ext === 'xml') {
      const root = await rootElementName(source, file);
      if (root === 'courseStructure') return parseCmi5(renamed(source, file, CMI5_MANIFEST), { ...options, standalone: true });
      if (root === 'manifest') {
        throw new PackageError(`"${file}" is a SCORM manifest on its own: upload a zip with imsmanifest.xml at its top level together with the course's files`);
      }
      if (root === 'tincan') {
        throw new PackageError(`"${file}" is an xAPI tincan.xml on its own: upload a zip with tincan.xml at its top level together with the course's files`);
      }
    }
    // The upload itself (not a file extracted from it) that claims to be a zip: it could not be opened as one.
    const isRawUpload = !!hint.fileName && basename(file) === basename(hint.fileName);
    if (ext === 'zip' || (isRawUpload && /zip/i.test(hint.contentType ?? ''))) {
      throw new PackageError(
        `"${basename(file)}" is not a valid zip archive (it could not be opened as a zip file); re-create the package with a zip tool and upload it again`,
      );
    }
    throw new PackageError(
      `"${basename(file)}" is not a course package LCDS can import: upload a zip package (SCORM, xAPI, cmi5 or AICC), a cmi5.xml course structure, or a single PDF, audio or video file. ${NO_MANIFEST_MESSAGE}`,
    );
  }

  const nested = files.find((f) => /\/(imsmanifest|cmi5|tincan)\.xml$/i.test(f));
  if (nested) {
    const folder = nested.slice(0, nested.lastIndexOf('/'));
    throw new PackageError(
      `${basename(nested)} was found at "${nested}", not at the top level of the zip: zip the contents of the folder "${folder}" (not the folder itself) so that ${basename(nested)} is at the root, and upload it again`,
    );
  }
  throw new PackageError(NO_MANIFEST_MESSAGE);
}

async function rootElementName(source: PackageSource, file: string): Promise<string | undefined> {
  const text = await source.readText(file);
  return parsePackageXml(text, basename(file)).root.local;
}

/** The same source with one file seen under another name (a standalone course structure uploaded as "course.xml"). */
function renamed(source: PackageSource, from: string, to: string): PackageSource {
  return {
    files: () => source.files().map((f) => (f === from ? to : f)),
    has: (p) => (p === to ? true : p === from ? false : source.has(p)),
    readText: (p) => source.readText(p === to ? from : p),
  };
}
