/** Standard detection, media courses, and the messages for uploads that are not packages. */
import { NO_MANIFEST_MESSAGE, parsePackage } from '../../../src/modules/courses/packages/detect-package';
import { PackageError } from '../../../src/modules/courses/packages/package-types';
import { memorySource } from './fixture-source';
import { expectWellFormed } from './tree-helpers';

async function failure(files: Record<string, string>, hint = {}): Promise<string> {
  try {
    await parsePackage(memorySource(files), hint);
  } catch (e) {
    expect(e).toBeInstanceOf(PackageError);
    return (e as Error).message;
  }
  throw new Error('package was imported');
}

const CMI5 = `<courseStructure xmlns="https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd">
  <course id="https://example.com/c"><title><langstring>C</langstring></title><description><langstring>D</langstring></description></course>
  <au id="https://example.com/au"><title><langstring>A</langstring></title><description><langstring>D</langstring></description><url>https://example.com/au.html</url></au>
</courseStructure>`;

describe('media courses', () => {
  it.each([
    ['Safety Briefing.pdf', 'pdf', 'application/pdf'],
    ['intro_video.MP4', 'video', 'video/mp4'],
    ['podcast.mp3', 'audio', 'audio/mpeg'],
    ['clip.webm', 'video', 'video/webm'],
    ['talk.m4a', 'audio', 'audio/mp4'],
  ])('imports a single %s as a one-page %s course (standard UNKNOWN)', async (file, kind, contentType) => {
    const p = await parsePackage(memorySource({ [file]: '' }), { fileName: file });
    expectWellFormed(p);
    expect(p.standard).toBe('UNKNOWN');
    expect(p.title).toBe(file.replace(/\.[^.]+$/, '').replace(/_/g, ' '));
    expect(p.rootActivity).toMatchObject({ activityType: 'ASSET', href: file, children: [] });
    expect(p.packageData).toEqual({ media: { kind, file, contentType } });
    expect(p.launchables[0].data).toEqual({ media: { kind, file, contentType } });
  });

  it('uses the content type when the file has no extension', async () => {
    const p = await parsePackage(memorySource({ upload: '' }), { contentType: 'video/quicktime' });
    expect(p.packageData.media).toEqual({ kind: 'video', file: 'upload', contentType: 'video/quicktime' });
  });
});

describe('detection', () => {
  it('gives the no-manifest message for a zip of other files', async () => {
    expect(await failure({ 'index.html': '', 'js/app.js': '' })).toBe(NO_MANIFEST_MESSAGE);
  });

  it('explains how to re-zip when the manifest is inside a folder', async () => {
    expect(await failure({ 'MyCourse/imsmanifest.xml': '<manifest/>', 'MyCourse/index.html': '' })).toMatch(
      /imsmanifest\.xml was found at "MyCourse\/imsmanifest\.xml", not at the top level of the zip: zip the contents of the folder "MyCourse"/,
    );
  });

  it('ignores archiver junk when detecting', async () => {
    expect(await failure({ '__MACOSX/._x': '', '.DS_Store': '' })).toMatch(/^The package is empty/);
    const p = await parsePackage(memorySource({ 'lecture.pdf': '', '__MACOSX/._lecture.pdf': '', '.DS_Store': '' }));
    expect(p.standard).toBe('UNKNOWN');
  });

  it('detects a standalone course structure uploaded under another name', async () => {
    const p = await parsePackage(memorySource({ 'my-course.xml': CMI5 }), { fileName: 'my-course.xml' });
    expect(p.standard).toBe('CMI5');
    expect(p.launchables[0].href).toBe('https://example.com/au.html');
  });

  it('explains that a lone imsmanifest-like XML needs its zip', async () => {
    expect(await failure({ 'manifest.xml': '<manifest identifier="m"/>' })).toMatch(/is a SCORM manifest on its own: upload a zip/);
  });

  it('says when an upload is not a zip at all', async () => {
    expect(await failure({ 'course.zip': 'PK garbage' })).toMatch(/"course\.zip" is not a valid zip archive/);
    expect(await failure({ package: 'garbage' }, { fileName: 'package', contentType: 'application/zip' })).toMatch(/"package" is not a valid zip archive/);
    // A valid zip that holds one unrelated file is not a broken zip.
    expect(await failure({ 'readme.txt': 'hi' }, { fileName: 'course.zip', contentType: 'application/zip' })).toMatch(/^"readme\.txt" is not a course package/);
  });

  it('names unsupported single files', async () => {
    expect(await failure({ 'notes.docx': '' })).toMatch(/^"notes\.docx" is not a course package LCDS can import/);
  });

  it('prefers imsmanifest.xml over other manifests, and finds tincan.xml, cmi5.xml in any letter case', async () => {
    const x = await parsePackage(
      memorySource({
        'TinCan.xml': '<tincan><activities><activity id="http://e.com/c"><name>X</name><launch>https://e.com/x</launch></activity></activities></tincan>',
      }),
    );
    expect(x.standard).toBe('XAPI');
    const c = await parsePackage(memorySource({ 'CMI5.xml': CMI5 }));
    expect(c.standard).toBe('CMI5');
  });
});
