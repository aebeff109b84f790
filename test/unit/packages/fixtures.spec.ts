/**
 * Every real-world fixture package in /work/shared/fixtures/packages and the ADL cmi5 LMS test suite package library:
 * standard, title, tree shape, important fields, and the exact reason for every rejected package.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { NO_MANIFEST_MESSAGE, parsePackage } from '../../../src/modules/courses/packages/detect-package';
import { PackageError, type PackageSource, type ParsedPackage } from '../../../src/modules/courses/packages/package-types';
import { CMI5_SUITE_DIR, PACKAGES_DIR, cleanupFixtures, fixtureSource, singleFileSource } from './fixture-source';
import { countActivities, expectWellFormed, findActivity } from './tree-helpers';

afterAll(() => cleanupFixtures());

/** How the importer hands a fixture over: zips extracted; an uploaded .xml whose root is courseStructure renamed cmi5.xml. */
function sourceFor(dir: string, file: string): { source: PackageSource; hint: { fileName: string } } {
  const path = join(dir, file);
  if (file.endsWith('.zip')) return { source: fixtureSource(path), hint: { fileName: file } };
  if (file.endsWith('.xml')) return { source: singleFileSource(path, 'cmi5.xml'), hint: { fileName: file } };
  return { source: singleFileSource(path), hint: { fileName: file } };
}

async function parseFixture(dir: string, file: string): Promise<ParsedPackage> {
  const { source, hint } = sourceFor(dir, file);
  return parsePackage(source, hint);
}

async function rejection(dir: string, file: string): Promise<string> {
  try {
    await parseFixture(dir, file);
  } catch (e) {
    expect(e).toBeInstanceOf(PackageError);
    return (e as Error).message;
  }
  throw new Error(`${file} was imported but must be rejected`);
}

interface Valid {
  standard: ParsedPackage['standard'];
  title: string;
  scos: number;
  assets?: number;
  aggregations?: number;
  check?: (p: ParsedPackage) => void;
}
type Expectation = Valid | { error: RegExp[] };

const PACKAGES: Record<string, Expectation> = {
  'aicc-complex-pre-ort.zip': {
    standard: 'AICC',
    title: 'Complex AICC Course',
    scos: 3,
    aggregations: 1,
    check: (p) => {
      expect(p.launchables.map((l) => [l.id, l.title, l.href])).toEqual([
        ['A1', 'Intro AU', 'intro.html'],
        ['A2', 'Scenario AU', 'scenario.html'],
        ['A3', 'Assessment AU', 'assessment.html'],
      ]);
      expect(findActivity(p.rootActivity, 'A1')?.scaledPassingScore).toBe('0.8');
      expect(findActivity(p.rootActivity, 'A2')?.scaledPassingScore).toBeUndefined();
      expect(findActivity(p.rootActivity, 'A3')?.scaledPassingScore).toBe('0.75');
      expect(p.launchables[0].data).toMatchObject({ masteryScore: '80', maxTimeAllowed: '00:20:00', timeLimitAction: 'C,N', type: 'lesson' });
      expect(p.metadata.description).toBe('Complex course for parsing tests');
      const aicc = p.packageData.aicc as Record<string, unknown>;
      expect(aicc.objectivesRelationships).toHaveLength(3);
      expect(aicc.prerequisites).toEqual([
        { pre_from: 'A2', post_to: 'A1' },
        { pre_from: 'A3', post_to: 'A1' },
        { pre_from: 'A3', post_to: 'A2' },
      ]);
      expect(p.rootActivity.externalIdentifier).toBe('complex-course');
    },
  },
  'cmi5-catapult-multi-au-framed.zip': {
    standard: 'CMI5',
    title: 'Introduction to Geology - Multi AU at Root',
    scos: 8,
    aggregations: 1,
    check: (p) => {
      expect(p.xapiActivityId).toBe('https://w3id.org/xapi/cmi5/catapult/lts/course/geology-intro-multi-au-framed');
      const base = 'https://w3id.org/xapi/cmi5/catapult/lts/course/geology-intro-multi-au-framed';
      expect(p.launchables.map((l) => l.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 'quiz'].map((n) => `${base}/${n}`));
      p.launchables.forEach((l, i) => {
        expect(l.href).toBe('index.html');
        expect(l.data).toMatchObject({ moveOn: i < 7 ? 'CompletedOrPassed' : 'CompletedAndPassed', launchMethod: 'AnyWindow' });
      });
      expect(p.launchables[7].parameters).toBe('pages=quiz&complete=quiz');
      expect(p.launchables[0].parameters).toBe('pages=1&complete=launch');
      expect(p.launchables[0].data.url).toBe('index.html?pages=1&complete=launch');
      expect(p.rootActivity.children[0].href).toBe('index.html?pages=1&complete=launch');
      expect(p.courseLanguages).toEqual(['en-US']);
      expect(p.metadata.titleLanguage).toBe('en-US');
    },
  },
  'cmi5-catapult-single-au-basic-framed.zip': {
    standard: 'CMI5',
    title: 'Introduction to Geology - Framed Style',
    scos: 1,
    check: (p) => {
      expect(p.launchables[0]).toMatchObject({ href: 'index.html', data: { moveOn: 'CompletedOrPassed' } });
      expect(p.metadata.description).toMatch(/^This course will introduce you into the basics of geology\. This includes/);
    },
  },
  'invalid-scorm12-item-bad-resource-ref.zip': { error: [/item "item_1"/, /"non_existent_resource"/, /identifierref/, /line 20/] },
  'invalid-scorm12-malformed-xml.zip': { error: [/^imsmanifest\.xml is not well-formed XML/, /line 27, column 5/, /closing tag 'item'/] },
  'invalid-scorm12-missing-launch-url.zip': { error: [/resource "resource_1"/, /item "item_1"/, /no href attribute/, /SCO/] },
  'invalid-scorm2004-missing-org-id.zip': { error: [/<organization> #1 \("Minimal Course"\) has no identifier attribute/] },
  'scorm12-golf-cp-metadata.zip': {
    standard: 'SCORM12',
    title: 'SCORM 1.2 With Metadata',
    scos: 1,
    check: (p) => {
      // metadata.xml (adlcp:location): empty LOM title → organization title; keywords and language from the LOM.
      expect(p.metadata).toEqual({ title: 'SCORM 1.2 With Metadata', keywords: ['Training'] });
      expect(p.courseLanguages).toEqual(['en']);
      expect(p.launchables[0]).toMatchObject({ id: 'i1', href: 'index.html', data: { dataFromLms: 'RANDOM', scormType: 'sco' } });
    },
  },
  'scorm12-golf-runtime-basic.zip': {
    standard: 'SCORM12',
    title: 'Golf Explained - Run-time Basic Calls',
    scos: 1,
    check: (p) => expect(p.launchables[0].href).toBe('shared/launchpage.html'),
  },
  'scorm12-golf-runtime-minimum.zip': {
    standard: 'SCORM12',
    title: 'Golf Explained - Minimum Run-time Calls',
    scos: 18,
    aggregations: 5,
    check: (p) => {
      expect(p.rootActivity.children.map((c) => [c.externalIdentifier, c.activityType, c.children.length])).toEqual([
        ['playing_item', 'AGGREGATION', 6],
        ['etiquette_item', 'AGGREGATION', 4],
        ['handicapping_item', 'AGGREGATION', 5],
        ['havingfun_item', 'AGGREGATION', 3],
      ]);
      const quiz = p.launchables.find((l) => l.id === 'playing_quiz_item');
      expect(quiz?.parameters).toBe('?questions=Playing');
      expect(quiz?.href).toBe('shared/assessmenttemplate.html');
    },
  },
  'scorm2004-2nd-golf-cp-single-sco.zip': {
    standard: 'SCORM20042NDEDITION',
    title: 'Golf Explained - CP Single SCO',
    scos: 1,
    check: (p) => expect(p.packageData.schemaVersion).toBe('CAM 1.3'),
  },
  'scorm2004-3rd-golf-runtime-advanced.zip': {
    standard: 'SCORM20043RDEDITION',
    title: 'Golf Explained - Run-time Advanced Calls',
    scos: 1,
    check: (p) => {
      // primaryObjective satisfiedByMeasure="true" + minNormalizedMeasure 0.8
      expect(findActivity(p.rootActivity, 'item_1')?.scaledPassingScore).toBe('0.8');
      expect(p.launchables[0].data.sequencing).toMatchObject({ name: 'imsss:sequencing' });
    },
  },
  'scorm2004-3rd-golf-runtime-basic.zip': { standard: 'SCORM20043RDEDITION', title: 'Golf Explained - Run-time Basic Calls', scos: 1 },
  'scorm2004-3rd-golf-seq-forced-sequential.zip': {
    standard: 'SCORM20043RDEDITION',
    title: 'Golf Explained - Sequencing Forced Order',
    scos: 5,
    check: (p) => {
      expect(p.launchables.map((l) => l.href)).toEqual(
        ['playing', 'etiquette', 'handicapping', 'havingfun', 'assessment'].map((c) => `shared/launchpage.html?content=${c}`),
      );
      const org = p.packageData.organization as { sequencing: { children: { name: string; attributes: Record<string, string> }[] } };
      expect(org.sequencing.children.find((c) => c.name === 'imsss:controlMode')?.attributes).toMatchObject({ choice: 'true', flow: 'true' });
    },
  },
  'scorm2004-3rd-golf-seq-posttest-rollup.zip': { standard: 'SCORM20043RDEDITION', title: 'Golf Explained - Sequencing Post Test Rollup', scos: 5 },
  'scorm2004-4th-golf-seq-posttest-rollup.zip': {
    standard: 'SCORM20044THEDITION',
    title: 'Golf Explained - 4th Edition Features',
    scos: 5,
    check: (p) => {
      const etiquette = p.launchables.find((l) => l.id === 'etuqiette_item');
      expect(etiquette?.data).toMatchObject({
        sequencingIdRef: 'content_seq_rules',
        completionThreshold: { progressWeight: '0.3' },
        sharedData: [{ targetID: 'com.scorm.golfsamples.sequencing.forcedsequential.notesStorage', readSharedData: true, writeSharedData: true }],
        dependencies: ['common_files'],
      });
      expect(Object.keys(p.packageData.sequencingCollection as object)).toEqual(['content_seq_rules']);
      expect(p.packageData.organization).toMatchObject({ objectivesGlobalToSystem: false, sharedDataGlobalToSystem: false });
      expect((p.packageData.activities as Record<string, unknown>).assessment_item).toBeDefined();
    },
  },
  'xapi-tincan-golfexample.zip': {
    standard: 'XAPI',
    title: 'Tin Can Golf Example',
    scos: 1,
    aggregations: 0,
    check: (p) => {
      expect(p.xapiActivityId).toBe('http://id.tincanapi.com/activity/tincan-prototypes/golf-example');
      expect(p.launchables[0]).toMatchObject({ id: p.xapiActivityId, href: 'index.html' });
      expect(p.metadata).toMatchObject({ description: 'An overview of the sport of golf.', descriptionLanguage: 'en-US' });
      expect(p.courseLanguages).toEqual(['en-US']);
    },
  },
  'xapi-tincan-locator.zip': {
    standard: 'XAPI',
    title: 'Tin Can Museum Tour Example',
    scos: 1,
    aggregations: 0,
    check: (p) => {
      expect(p.xapiActivityId).toBe('http://id.tincanapi.com/activity/tincan-prototypes/nashville-museums-tour');
      expect(p.launchables[0].data.activityType).toBe('http://adlnet.gov/expapi/activities/performance');
    },
  },
};

const catapult = (n: string): string => `https://w3id.org/xapi/cmi5/catapult/lts/au/${n}`;
const cmi5Valid = (title: string, check?: (p: ParsedPackage) => void, scos = 1): Valid => ({ standard: 'CMI5', title, scos, check });

const CMI5_SUITE: Record<string, Expectation> = {
  '001-essentials.zip': cmi5Valid('CATAPULT LMS Test Course: 001 Essentials', (p) => {
    expect(p.rootActivity.children).toHaveLength(1);
    expect(p.rootActivity.children[0]).toMatchObject({ activityType: 'AGGREGATION', externalIdentifier: 'https://w3id.org/xapi/cmi5/catapult/lts/block/001-essentials' });
    expect(p.launchables[0]).toMatchObject({
      id: catapult('001-essentials'),
      href: 'index.html',
      parameters: 'paramA=1&paramB=2',
      data: {
        url: 'index.html?paramA=1&paramB=2',
        moveOn: 'CompletedAndPassed',
        masteryScore: 0.9,
        launchMethod: 'AnyWindow',
        launchParameters: 'sample string',
        entitlementKey: 'sample value',
        blockIds: ['https://w3id.org/xapi/cmi5/catapult/lts/block/001-essentials'],
      },
    });
    expect(p.rootActivity.children[0].children[0].scaledPassingScore).toBe('0.9');
    expect(p.xapiActivityId).toBe('https://w3id.org/xapi/cmi5/catapult/lts/course/001-essentials');
  }),
  '002-allowed.zip': cmi5Valid('CATAPULT LMS Test Course: 002 Allowed'),
  '003-launchMethod-OwnWindow.zip': cmi5Valid('CATAPULT LMS Test Course: 003 launchMethod OwnWindow', (p) =>
    expect(p.launchables[0].data).toMatchObject({ launchMethod: 'OwnWindow', moveOn: 'CompletedOrPassed' }),
  ),
  '004-1-moveOn-Completed.zip': cmi5Valid('CATAPULT LMS Test Course: 004-1 moveOn Completed', (p) => expect(p.launchables[0].data.moveOn).toBe('Completed')),
  '004-2-moveOn-CompletedOrPassed.zip': cmi5Valid('CATAPULT LMS Test Course: 004-2 moveOn CompletedOrPassed', (p) =>
    expect(p.launchables[0].data.moveOn).toBe('CompletedOrPassed'),
  ),
  '004-3-moveOn-Passed.zip': cmi5Valid('CATAPULT LMS Test Course: 004-3 moveOn Passed', (p) => expect(p.launchables[0].data.moveOn).toBe('Passed')),
  '004-4-moveOn-CompletedOrPassed.zip': cmi5Valid('CATAPULT LMS Test Course: 004-4 moveOn CompletedOrPassed', (p) =>
    expect(p.launchables[0].data.moveOn).toBe('CompletedOrPassed'),
  ),
  '004-5-moveOn-NotApplicable.zip': cmi5Valid('CATAPULT LMS Test Course: 004-5 moveOn NotApplicable', (p) =>
    expect(p.launchables[0].data.moveOn).toBe('NotApplicable'),
  ),
  // 005: the course structure is valid; the AU itself sends invalid statements at runtime, which the LMS must reject
  // with 403 (cmi5 9.3.0.0-2/-3). The package must therefore import.
  '005-1-invalid-au.zip': cmi5Valid('CATAPULT LMS Test Course: 005-1 Invalid AU', (p) => expect(p.launchables[0].data.masteryScore).toBe(0.9)),
  '005-2-invalid-au.zip': cmi5Valid('CATAPULT LMS Test Course: 005-2 Invalid AU'),
  '006-launchMode.zip': cmi5Valid('CATAPULT LMS Test Course: 006 launchMode'),
  '007-1-multi-session.zip': cmi5Valid('CATAPULT LMS Test Course: 007-1 Multi Session'),
  '007-2-multi-session.zip': cmi5Valid('CATAPULT LMS Test Course: 007-2 Multi Session'),
  '008-1-abandoned.zip': cmi5Valid('CATAPULT LMS Test Course: 008-1 Abandoned'),
  '009-1-waived.zip': cmi5Valid('CATAPULT LMS Test Course: 009-1 Waived', (p) => expect(p.launchables[0].id).toBe(catapult('009-1-waived/0'))),
  '101-one-thousand-aus.xml': cmi5Valid(
    'CATAPULT LMS Test Course: 0002-one-thousand-aus',
    (p) => {
      expect(p.launchables[1000]).toMatchObject({ id: catapult('0002-one-thousand-aus/1000'), href: 'http://example.com/index.html' });
      expect(p.launchables.every((l) => l.data.moveOn === 'NotApplicable' && l.data.launchMethod === 'AnyWindow')).toBe(true);
    },
    1001,
  ),
  '102-zip64.zip': cmi5Valid('CATAPULT LMS Test Course: 102 Zip64', (p) => expect(p.launchables[0].href).toBe('index.html')),
  '201-1-iris-course-id.xml': { error: [/course id "w3id\.org\/xapi\/cmi5\/catapult\/lts\/course\/201-1-iris-course-id" is not an IRI/, /3\.0\.0\.0-1/] },
  '201-2-iris-block-id.xml': { error: [/block id "w3id\.org\/.*" is not an IRI/, /3\.0\.0\.0-1/] },
  '201-3-iris-au-id.xml': { error: [/AU id "w3id\.org\/.*" is not an IRI/, /3\.0\.0\.0-1/] },
  '201-4-iris-objective-id.xml': { error: [/objective id "w3id\.org\/.*" is not an IRI/, /3\.0\.0\.0-1/] },
  '202-1-relative-url-no-zip.xml': { error: [/relative url "index\.html"/, /imported on its own/, /absolute URL/, /14\.2\.0\.0-1/] },
  '202-2-relative-url-no-zip.xml': { error: [/relative url "path\/1\/index\.html"/, /14\.2\.0\.0-1/] },
  '202-3-relative-url-no-zip.xml': { error: [/relative url "index\.html\?abc=def"/, /14\.2\.0\.0-1/] },
  '202-4-relative-url-no-zip.xml': { error: [/relative url "path\/1\/index\.html\?abc=def"/, /14\.2\.0\.0-1/] },
  '202-5-relative-url-no-zip.xml': { error: [/relative url "\/index\.html"/, /14\.2\.0\.0-1/] },
  '203-1-relative-url-no-reference.zip': { error: [/"not-found\.html" is not in the package/, /14\.1\.0\.0-4/] },
  '204-query-string-conflict-endpoint.xml': { error: [/query string uses "endpoint"/, /8\.1\.0\.0-6/] },
  '205-1-duplicated-block.xml': { error: [/block id ".*205-1-duplicated-block" is already used by another block/, /13\.1\.2\.0-1/] },
  '205-2-duplicated-objective.xml': { error: [/objective id ".*205-2-duplicated-objective" is already used by another objective/] },
  '205-3-duplicated-au.xml': { error: [/AU id ".*205-3-duplicated-au" is already used by another AU/, /13\.1\.4\.0-1/] },
  '206-1-invalid-au-url.xml': { error: [/url "http:\/\/example\.com index\.html", which is not a valid URL/, /13\.1\.4\.0-2/] },
  '207-1-invalid-courseStructure.xml': { error: [/13\.2\.0\.0-1/, /<url> comes before <title>/, /order title, description/] },
  '208-1-invalid-package.md': { error: [/"208-1-invalid-package\.md" is not a course package LCDS can import/] },
  '209-1-not-a-zip.zip': { error: [/"209-1-not-a-zip\.zip" is not a valid zip archive/] },
  '210-1-no-cmi5-xml.zip': { error: [new RegExp(`^${NO_MANIFEST_MESSAGE.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`)] },
};

function suite(name: string, dir: string, table: Record<string, Expectation>): void {
  describe(name, () => {
    it('covers every fixture file', () => {
      expect(readdirSync(dir).sort()).toEqual(Object.keys(table).sort());
    });
    for (const [file, exp] of Object.entries(table)) {
      if ('error' in exp) {
        it(`rejects ${file}`, async () => {
          const message = await rejection(dir, file);
          for (const re of exp.error) expect(message).toMatch(re);
        });
      } else {
        it(`imports ${file} as ${exp.standard}`, async () => {
          const p = await parseFixture(dir, file);
          expect(p.standard).toBe(exp.standard);
          expect(p.title).toBe(exp.title);
          expect(p.metadata.title).toBe(exp.title);
          expect(countActivities(p.rootActivity, 'SCO')).toBe(exp.scos);
          expect(countActivities(p.rootActivity, 'ASSET')).toBe(exp.assets ?? 0);
          if (exp.aggregations !== undefined) expect(countActivities(p.rootActivity, 'AGGREGATION')).toBe(exp.aggregations);
          expect(p.launchables).toHaveLength(exp.scos + (exp.assets ?? 0));
          expectWellFormed(p);
          exp.check?.(p);
        });
      }
    }
  });
}

suite('fixture packages', PACKAGES_DIR, PACKAGES);
suite('cmi5 LMS test suite packages', CMI5_SUITE_DIR, CMI5_SUITE);

describe('performance', () => {
  it('parses the 1001-AU course structure (101) well under a second', async () => {
    const { source } = sourceFor(CMI5_SUITE_DIR, '101-one-thousand-aus.xml');
    await parsePackage(source, { fileName: '101-one-thousand-aus.xml' }); // warm-up
    // CPU time of this process, not wall time: a guard against quadratic parsing that other load cannot trip.
    const cpu0 = process.cpuUsage();
    const p = await parsePackage(source, { fileName: '101-one-thousand-aus.xml' });
    const cpu = process.cpuUsage(cpu0);
    const ms = (cpu.user + cpu.system) / 1000;
    expect(p.launchables).toHaveLength(1001);
    expect(ms).toBeLessThan(500);
  });
});
