/** SCORM 1.2 / 2004 manifests built by the tests: versions, xml:base, extensions, passing scores, precise failures. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parsePackage } from '../../../src/modules/courses/packages/detect-package';
import { PackageError, type ParsedPackage } from '../../../src/modules/courses/packages/package-types';
import { parseScorm } from '../../../src/modules/courses/packages/scorm-parser';
import { SCORM_4ED_MANIFESTS_DIR, directorySource, memorySource } from './fixture-source';
import { countActivities, expectWellFormed, findActivity } from './tree-helpers';

const NS12 = 'xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"';
const NS2004 =
  'xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss" xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3" xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3"';

function manifest(ns: string, schemaversion: string | null, orgBody: string, resources: string, extra = ''): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="test.manifest" version="1" ${ns}>
  ${schemaversion === null ? '' : `<metadata><schema>ADL SCORM</schema><schemaversion>${schemaversion}</schemaversion></metadata>`}
  <organizations default="org">
    <organization identifier="org"><title>Test Course</title>${orgBody}</organization>
  </organizations>
  <resources>${resources}</resources>
  ${extra}
</manifest>`;
}

const sco12 = (id: string, href: string): string => `<resource identifier="${id}" type="webcontent" adlcp:scormtype="sco" href="${href}"/>`;
const sco2004 = (id: string, href: string): string => `<resource identifier="${id}" type="webcontent" adlcp:scormType="sco" href="${href}"/>`;

async function parse(files: Record<string, string>, checkFiles = true): Promise<ParsedPackage> {
  const p = await parsePackage(memorySource(files), {}, { checkFiles });
  expectWellFormed(p);
  return p;
}

async function failure(files: Record<string, string>): Promise<string> {
  try {
    await parsePackage(memorySource(files));
  } catch (e) {
    expect(e).toBeInstanceOf(PackageError);
    return (e as Error).message;
  }
  throw new Error('package was imported');
}

describe('SCORM version detection', () => {
  it.each([
    ['1.2', 'SCORM12'],
    ['CAM 1.3', 'SCORM20042NDEDITION'],
    ['2004 3rd Edition', 'SCORM20043RDEDITION'],
    ['2004 4th Edition', 'SCORM20044THEDITION'],
  ])('schemaversion "%s" → %s', async (sv, standard) => {
    const ns = sv === '1.2' ? NS12 : NS2004;
    const res = sv === '1.2' ? sco12('r', 'a.html') : sco2004('r', 'a.html');
    const p = await parse({ 'imsmanifest.xml': manifest(ns, sv, '<item identifier="i" identifierref="r"><title>I</title></item>', res), 'a.html': '' });
    expect(p.standard).toBe(standard);
  });

  it('infers the version from namespaces when schemaversion is missing', async () => {
    const body = '<item identifier="i" identifierref="r"><title>I</title></item>';
    expect((await parse({ 'imsmanifest.xml': manifest(NS12, null, body, sco12('r', 'a.html')), 'a.html': '' })).standard).toBe('SCORM12');
    expect((await parse({ 'imsmanifest.xml': manifest(NS2004, null, body, sco2004('r', 'a.html')), 'a.html': '' })).standard).toBe('SCORM20043RDEDITION');
    const fourth = manifest(
      NS2004,
      null,
      '<item identifier="i" identifierref="r"><title>I</title><adlcp:completionThreshold minProgressMeasure="0.5" completedByMeasure="true"/></item>',
      sco2004('r', 'a.html'),
    );
    expect((await parse({ 'imsmanifest.xml': fourth, 'a.html': '' })).standard).toBe('SCORM20044THEDITION');
  });
});

describe('SCORM 1.2', () => {
  const body = `
    <item identifier="chapter"><title>Chapter</title>
      <item identifier="s1" identifierref="r1" parameters="?page=1" isvisible="false"><title xml:lang="fr">Un</title>
        <adlcp:masteryscore>80</adlcp:masteryscore>
        <adlcp:maxtimeallowed>00:30:00</adlcp:maxtimeallowed>
        <adlcp:timelimitaction>exit,message</adlcp:timelimitaction>
        <adlcp:datafromlms>launch data</adlcp:datafromlms>
        <adlcp:prerequisites type="aicc_script">s0</adlcp:prerequisites>
      </item>
      <item identifier="a1" identifierref="r2"><title>Asset</title></item>
    </item>`;
  const resources = `${sco12('r1', 'sco1.html')}<resource identifier="r2" type="webcontent" adlcp:scormtype="asset" href="doc.pdf"><file href="doc.pdf"/><file href="missing.css"/></resource>`;

  it('builds the tree, launchables and 1.2 extension data', async () => {
    const p = await parse({ 'imsmanifest.xml': manifest(NS12, '1.2', body, resources), 'sco1.html': '', 'doc.pdf': '' });
    expect(countActivities(p.rootActivity, 'SCO')).toBe(1);
    expect(countActivities(p.rootActivity, 'ASSET')).toBe(1);
    expect(findActivity(p.rootActivity, 'chapter')?.activityType).toBe('AGGREGATION');
    const s1 = findActivity(p.rootActivity, 's1');
    expect(s1).toMatchObject({ activityType: 'SCO', href: 'sco1.html', resourceIdentifier: 'r1', scaledPassingScore: '0.8', title: 'Un' });
    expect(p.launchables.map((l) => l.id)).toEqual(['s1', 'a1']);
    expect(p.launchables[0]).toMatchObject({
      href: 'sco1.html',
      parameters: '?page=1',
      data: {
        isVisible: false,
        masteryScore: '80',
        maxTimeAllowed: '00:30:00',
        timeLimitAction: 'exit,message',
        dataFromLms: 'launch data',
        prerequisites: { type: 'aicc_script', value: 's0' },
        scormType: 'sco',
      },
    });
    expect(p.launchables[1].data.scormType).toBe('asset');
    expect(p.courseLanguages).toEqual(['fr']);
    // A <file> that is missing is only a warning.
    expect(p.warnings.join('\n')).toMatch(/resource "r2" lists 1 file that is not in the package: "missing\.css"/);
  });

  it('accepts other prefixes bound to the SCORM namespaces', async () => {
    const xml = `<?xml version="1.0"?>
<cp:manifest identifier="m" xmlns:cp="http://www.imsproject.org/xsd/imscp_rootv1p1p2" xmlns:scorm="http://www.adlnet.org/xsd/adlcp_rootv1p2">
  <cp:organizations default="o"><cp:organization identifier="o"><cp:title>Prefixed</cp:title>
    <cp:item identifier="i" identifierref="r"><cp:title>I</cp:title><scorm:masteryscore>75</scorm:masteryscore></cp:item>
  </cp:organization></cp:organizations>
  <cp:resources><cp:resource identifier="r" type="webcontent" scorm:scormType="sco" href="i.html"/></cp:resources>
</cp:manifest>`;
    const p = await parse({ 'imsmanifest.xml': xml, 'i.html': '' });
    expect(p.standard).toBe('SCORM12');
    expect(p.title).toBe('Prefixed');
    expect(findActivity(p.rootActivity, 'i')).toMatchObject({ activityType: 'SCO', scaledPassingScore: '0.75' });
  });

  it('combines xml:base of manifest, resources and resource', async () => {
    const xml = manifest(
      NS12,
      '1.2',
      '<item identifier="i" identifierref="r"><title>I</title></item><item identifier="j" identifierref="r2"><title>J</title></item>',
      `<resource identifier="r" type="webcontent" adlcp:scormtype="sco" xml:base="unit1" href="page.html?x=1"/>
       <resource identifier="r2" type="webcontent" adlcp:scormtype="sco" xml:base="https://cdn.example.com/c/" href="remote.html"/>`,
    ).replace('<manifest identifier="test.manifest"', '<manifest xml:base="content/" identifier="test.manifest"').replace('<resources>', '<resources xml:base="lessons/">');
    const p = await parse({ 'imsmanifest.xml': xml, 'content/lessons/unit1/page.html': '' });
    expect(p.launchables.map((l) => l.href)).toEqual(['content/lessons/unit1/page.html?x=1', 'https://cdn.example.com/c/remote.html']);
  });

  it('uses the default organization and falls back to the first', async () => {
    const two = (def: string): string =>
      `<manifest identifier="m" ${NS12}><organizations default="${def}">
        <organization identifier="o1"><title>First</title><item identifier="i1" identifierref="r"><title>A</title></item></organization>
        <organization identifier="o2"><title>Second</title><item identifier="i2" identifierref="r"><title>B</title></item></organization>
      </organizations><resources>${sco12('r', 'a.html')}</resources></manifest>`;
    expect((await parse({ 'imsmanifest.xml': two('o2'), 'a.html': '' })).title).toBe('Second');
    const fallback = await parse({ 'imsmanifest.xml': two('nope'), 'a.html': '' });
    expect(fallback.title).toBe('First');
    expect(fallback.warnings.join()).toMatch(/default="nope"> names no organization/);
  });

  it('reads inline LOM metadata (title, description, keywords, duration, languages)', async () => {
    const lom = `<metadata><schema>ADL SCORM</schema><schemaversion>1.2</schemaversion>
      <lom xmlns="http://www.imsglobal.org/xsd/imsmd_rootv1p2p1"><general>
        <title><langstring xml:lang="de">Golf für Anfänger</langstring></title>
        <language>de</language>
        <description><langstring xml:lang="de">Eine Einführung</langstring></description>
        <keyword><langstring xml:lang="de">Golf</langstring></keyword><keyword><langstring>Sport</langstring></keyword>
      </general><technical><duration><datetime>PT1H</datetime></duration></technical>
      <educational><typicallearningtime><datetime>PT45M</datetime></typicallearningtime></educational></lom></metadata>`;
    const xml = manifest(NS12, null, '<item identifier="i" identifierref="r"><title>I</title></item>', sco12('r', 'a.html')).replace('<organizations', `${lom}<organizations`);
    const p = await parse({ 'imsmanifest.xml': xml, 'a.html': '' });
    expect(p.title).toBe('Test Course');
    expect(p.metadata).toEqual({
      title: 'Golf für Anfänger',
      titleLanguage: 'de',
      description: 'Eine Einführung',
      descriptionLanguage: 'de',
      keywords: ['Golf', 'Sport'],
      duration: 'PT1H',
      typicalTime: 'PT45M',
    });
    expect(p.courseLanguages).toEqual(['de']);
  });
});

describe('SCORM 2004', () => {
  it('keeps sequencing (local + sequencingCollection), presentation, and derives scaledPassingScore', async () => {
    const body = `
      <item identifier="i1" identifierref="r"><title>One</title>
        <imsss:sequencing IDRef="shared"><imsss:controlMode flow="true"/></imsss:sequencing>
        <adlnav:presentation><adlnav:navigationInterface><adlnav:hideLMSUI>continue</adlnav:hideLMSUI></adlnav:navigationInterface></adlnav:presentation>
        <adlcp:completionThreshold>0.75</adlcp:completionThreshold>
      </item>
      <item identifier="i2" identifierref="r"><title>Two</title>
        <imsss:sequencing><imsss:objectives><imsss:primaryObjective objectiveID="p" satisfiedByMeasure="true"/></imsss:objectives></imsss:sequencing>
      </item>
      <item identifier="i3" identifierref="r"><title>Three</title>
        <imsss:sequencing><imsss:objectives><imsss:primaryObjective objectiveID="p" satisfiedByMeasure="false"><imsss:minNormalizedMeasure>0.5</imsss:minNormalizedMeasure></imsss:primaryObjective></imsss:objectives></imsss:sequencing>
      </item>
      <imsss:sequencing><imsss:controlMode choice="false" flow="true"/></imsss:sequencing>`;
    const collection = `<imsss:sequencingCollection><imsss:sequencing ID="shared">
        <imsss:objectives><imsss:primaryObjective objectiveID="po" satisfiedByMeasure="true"><imsss:minNormalizedMeasure>0.6</imsss:minNormalizedMeasure></imsss:primaryObjective></imsss:objectives>
      </imsss:sequencing></imsss:sequencingCollection>`;
    const p = await parse({ 'imsmanifest.xml': manifest(NS2004, '2004 3rd Edition', body, sco2004('r', 'x.html'), collection), 'x.html': '' });
    expect(findActivity(p.rootActivity, 'i1')?.scaledPassingScore).toBe('0.6');
    expect(findActivity(p.rootActivity, 'i2')?.scaledPassingScore).toBe('1');
    expect(findActivity(p.rootActivity, 'i3')?.scaledPassingScore).toBeUndefined();
    expect(p.launchables[0].data).toMatchObject({
      sequencingIdRef: 'shared',
      sequencing: { name: 'imsss:sequencing', attributes: { IDRef: 'shared' }, children: [{ name: 'imsss:controlMode', attributes: { flow: 'true' } }] },
      presentation: { name: 'adlnav:presentation' },
      hideLMSUI: ['continue'],
      completionThreshold: { minProgressMeasure: '0.75' },
    });
    expect(p.packageData.sequencingCollection).toMatchObject({ shared: { name: 'imsss:sequencing' } });
    expect(p.packageData.organization).toMatchObject({ sequencing: { children: [{ name: 'imsss:controlMode', attributes: { choice: 'false' } }] } });
    expect((p.packageData.activities as Record<string, unknown>).i2).toMatchObject({ sequencing: { name: 'imsss:sequencing' } });
  });

  it('rejects a leaf item without identifierref', async () => {
    const msg = await failure({ 'imsmanifest.xml': manifest(NS2004, '2004 4th Edition', '<item identifier="leaf"><title>L</title></item>', '') });
    expect(msg).toMatch(/item "leaf" has neither child items nor an identifierref/);
  });
});

describe('SCORM failures', () => {
  const item = '<item identifier="i" identifierref="r"><title>I</title></item>';

  it('names the missing launch file (error by default, warning with checkFiles: false)', async () => {
    const files = { 'imsmanifest.xml': manifest(NS12, '1.2', item, sco12('r', 'lesson/Index.html')), 'lesson/index.html': '' };
    const msg = await failure(files);
    expect(msg).toMatch(/item "i" launches resource "r" at "lesson\/Index\.html", but the file "lesson\/Index\.html" is not in the package/);
    expect(msg).toMatch(/the package has "lesson\/index\.html"; file names are case-sensitive/);
    const p = await parse(files, false);
    expect(p.warnings.join('\n')).toMatch(/"lesson\/Index\.html" is not in the package/);
    await expect(parseScorm(memorySource(files), { checkFiles: false })).resolves.toMatchObject({ standard: 'SCORM12' });
  });

  it('does not check remote launch URLs', async () => {
    const p = await parse({ 'imsmanifest.xml': manifest(NS12, '1.2', item, sco12('r', 'https://example.com/sco.html')) });
    expect(p.launchables[0].href).toBe('https://example.com/sco.html');
  });

  it('rejects an href that escapes the package', async () => {
    expect(await failure({ 'imsmanifest.xml': manifest(NS12, '1.2', item, sco12('r', '../../etc/passwd')) })).toMatch(/points outside the package/);
  });

  it('rejects duplicate item identifiers', async () => {
    const body = '<item identifier="i" identifierref="r"><title>A</title></item><item identifier="i" identifierref="r"><title>B</title></item>';
    expect(await failure({ 'imsmanifest.xml': manifest(NS12, '1.2', body, sco12('r', 'a.html')), 'a.html': '' })).toMatch(/identifier "i" is used twice/);
  });

  it('rejects a manifest with nothing to launch', async () => {
    expect(await failure({ 'imsmanifest.xml': manifest(NS12, '1.2', '<item identifier="x"><title>X</title></item>', '') })).toMatch(
      /has no item that references a resource with an href/,
    );
  });

  it('rejects a manifest without organizations', async () => {
    expect(await failure({ 'imsmanifest.xml': `<manifest identifier="m" ${NS12}><resources/></manifest>` })).toMatch(/has no <organizations> element/);
  });

  it('rejects a wrong root element', async () => {
    expect(await failure({ 'imsmanifest.xml': '<course/>' })).toMatch(/root element is <course>.*must be <manifest>/);
  });
});

describe('SCORM 2004 4th Edition test suite manifests (ADL, 189 manifests without their SCOs)', () => {
  const dirs = readdirSync(SCORM_4ED_MANIFESTS_DIR).sort();

  it('has all 189 manifests', () => expect(dirs).toHaveLength(189));

  it.each(dirs)('%s parses as SCORM 2004 4th Edition', async (dir) => {
    const source = directorySource(join(SCORM_4ED_MANIFESTS_DIR, dir));
    // The SCOs are not included: launch files would be missing, so file checks are downgraded to warnings.
    const p = await parsePackage(source, {}, { checkFiles: false });
    expect(p.standard).toBe('SCORM20044THEDITION');
    expect(p.rootActivity.children.length).toBeGreaterThan(0);
    expect(p.launchables.length).toBeGreaterThan(0);
    expectWellFormed(p);
    await expect(parsePackage(source)).rejects.toThrow(/is not in the package/);
  });

  it('CM-01 keeps item parameters and the measure-based passing score', async () => {
    const p = await parsePackage(directorySource(join(SCORM_4ED_MANIFESTS_DIR, 'LMSTestPackage_CM-01')), {}, { checkFiles: false });
    expect(p.title).toBe('LMS Test Content Package CM-01');
    expect(p.launchables[0].parameters).toBe('?tc=CM-01&act=1');
    expect(findActivity(p.rootActivity, 'activity_2')?.scaledPassingScore).toBe('0.8');
    expect(p.launchables[0].data.hideLMSUI).toEqual(['continue', 'previous', 'suspendAll']);
  });
});
