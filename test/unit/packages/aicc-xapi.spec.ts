/** AICC descriptor files and xAPI tincan.xml built by the tests. */
import { parseCsv, parseIni } from '../../../src/modules/courses/packages/aicc-parser';
import { parsePackage } from '../../../src/modules/courses/packages/detect-package';
import { PackageError } from '../../../src/modules/courses/packages/package-types';
import { memorySource } from './fixture-source';
import { countActivities, expectWellFormed, findActivity } from './tree-helpers';

async function failure(files: Record<string, string>): Promise<string> {
  try {
    await parsePackage(memorySource(files));
  } catch (e) {
    expect(e).toBeInstanceOf(PackageError);
    return (e as Error).message;
  }
  throw new Error('package was imported');
}

describe('AICC file formats', () => {
  it('parses CSV with quotes, commas and doubled quotes inside quotes, CRLF and blank lines', () => {
    expect(parseCsv('"a","b, c","say ""hi"""\r\n\r\n x , ,"z"\n')).toEqual([
      ['a', 'b, c', 'say "hi"'],
      ['x', '', 'z'],
    ]);
  });

  it('parses .crs sections and keys case-insensitively, keeping free-text sections', () => {
    const ini = parseIni('[COURSE]\r\ncourse_title = "Quoted"\r\n[Course_Description]\r\nLine one,\r\nline two = fine\r\n');
    expect(ini.sections.course.course_title).toBe('Quoted');
    expect(ini.text.course_description).toBe('Line one,\r\nline two = fine'.replace(/\r/g, ''));
  });
});

describe('AICC courses', () => {
  const base = {
    'COURSE.CRS': '[Course]\nCourse_ID=C1\nCourse_Title=Blocks Course\n[Course_Description]\nA course, with blocks.\n',
    'Course.Au':
      '"SYSTEM_ID","Type","File_Name","Mastery_Score","Max_Score","Web_Launch","Max_Time_Allowed","Time_Limit_Action","AU_Password"\n' +
      '"A1","lesson","lesson1/start.html","8","10","mode=review&x=1","00:10:00","E,M","secret"\n' +
      '"A2","test","https://cdn.example.com/quiz, final.html","","","","","",""\n',
    'course.des': '"System_ID","Title","Description"\n"B1","Block One","The first block"\n"A1","Lesson, part 1","Intro"\n"A2","Quiz","Final"\n',
    'course.cst': '"Block","Member","Member"\n"root","B1",""\n"B1","A1","A2"\n',
    'lesson1/start.html': '',
  };

  it('builds blocks → AUs with case-insensitive file and header names', async () => {
    const p = await parsePackage(memorySource(base));
    expectWellFormed(p);
    expect(p.standard).toBe('AICC');
    expect(p.title).toBe('Blocks Course');
    expect(p.metadata.description).toBe('A course, with blocks.');
    expect(countActivities(p.rootActivity, 'AGGREGATION')).toBe(2);
    expect(countActivities(p.rootActivity, 'SCO')).toBe(2);
    expect(p.rootActivity.children[0]).toMatchObject({ externalIdentifier: 'B1', title: 'Block One', activityType: 'AGGREGATION' });
    expect(findActivity(p.rootActivity, 'A1')).toMatchObject({ title: 'Lesson, part 1', href: 'lesson1/start.html', scaledPassingScore: '0.8' });
    expect(p.launchables[0]).toMatchObject({
      parameters: 'mode=review&x=1',
      data: { webLaunch: 'mode=review&x=1', masteryScore: '8', maxScore: '10', maxTimeAllowed: '00:10:00', timeLimitAction: 'E,M', auPassword: 'secret' },
    });
    expect(p.launchables[1].href).toBe('https://cdn.example.com/quiz, final.html');
  });

  it('adds AUs missing from the .cst at the end, with a warning', async () => {
    const p = await parsePackage(memorySource({ ...base, 'course.cst': '"Block","Member"\n"root","A1"\n' }));
    expect(p.launchables.map((l) => l.id)).toEqual(['A1', 'A2']);
    expect(p.warnings.join()).toMatch(/AU "A2" is not in the course structure/);
  });

  it('names the missing AICC files', async () => {
    const { 'course.cst': _cst, 'course.des': _des, ...rest } = base;
    expect(await failure(rest)).toMatch(/AICC package is incomplete: it has no \.des, \.cst files/);
  });

  it('names an AU whose launch file is missing', async () => {
    const { 'lesson1/start.html': _f, ...rest } = base;
    expect(await failure(rest)).toMatch(/AU "A1" launches "lesson1\/start\.html", but the file "lesson1\/start\.html" is not in the package/);
  });

  it('rejects an AU without File_Name', async () => {
    expect(await failure({ ...base, 'Course.Au': '"System_ID","File_Name"\n"A1",""\n' })).toMatch(/AU "A1" has no File_Name/);
  });
});

describe('xAPI (tincan.xml)', () => {
  const tincan = (activities: string): string => `<?xml version="1.0"?><tincan xmlns="http://projecttincan.com/tincan.xsd"><activities>${activities}</activities></tincan>`;

  it('prefers the course activity with a launch element', async () => {
    const p = await parsePackage(
      memorySource({
        'tincan.xml': tincan(`
          <activity id="http://example.com/module" type="http://adlnet.gov/expapi/activities/module"><name>Module</name><launch lang="en">module.html</launch></activity>
          <activity id="http://example.com/course" type="http://adlnet.gov/expapi/activities/course"><name lang="fr">Cours</name><name lang="en-US">Course</name><description lang="en-US">Desc</description><launch lang="en-US">start/index.html?x=1</launch></activity>
          <activity id="http://example.com/q1" type="http://adlnet.gov/expapi/activities/cmi.interaction"><name>Q1</name></activity>`),
        'start/index.html': '',
        'module.html': '',
      }),
    );
    expectWellFormed(p);
    expect(p).toMatchObject({ standard: 'XAPI', title: 'Course', xapiActivityId: 'http://example.com/course' });
    expect(p.launchables[0]).toMatchObject({ id: 'http://example.com/course', href: 'start/index.html?x=1' });
    expect(p.metadata).toMatchObject({ titleLanguage: 'en-US', description: 'Desc' });
    expect(p.courseLanguages).toEqual(['en', 'fr', 'en-US']);
    expect((p.packageData.activities as unknown[]).length).toBe(3);
  });

  it('rejects a tincan.xml without a launchable activity', async () => {
    expect(await failure({ 'tincan.xml': tincan('<activity id="http://example.com/c"><name>C</name></activity>') })).toMatch(/no <activity> has a <launch> element/);
  });

  it('rejects a non-IRI activity id and a missing launch file', async () => {
    expect(await failure({ 'tincan.xml': tincan('<activity id="course-1"><launch>a.html</launch></activity>'), 'a.html': '' })).toMatch(/"course-1" is not an IRI/);
    expect(await failure({ 'tincan.xml': tincan('<activity id="http://e.com/c"><launch>a.html</launch></activity>') })).toMatch(/the file "a\.html" is not in the package/);
  });
});
