/** cmi5 course structures built by the tests: defaults, nesting, objectives and the schema rules named in messages. */
import { parseCmi5 } from '../../../src/modules/courses/packages/cmi5-parser';
import { parsePackage } from '../../../src/modules/courses/packages/detect-package';
import { PackageError } from '../../../src/modules/courses/packages/package-types';
import { memorySource } from './fixture-source';
import { countActivities, expectWellFormed } from './tree-helpers';

const NS = 'https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd';
const text = (tag: string, value: string, lang = 'en'): string => `<${tag}><langstring lang="${lang}">${value}</langstring></${tag}>`;
const au = (id: string, url: string, attrs = '', inner = ''): string =>
  `<au id="${id}" ${attrs}>${text('title', `AU ${id}`)}${text('description', 'd')}${inner}<url>${url}</url></au>`;
const course = (body: string, objectives = ''): string =>
  `<?xml version="1.0"?><courseStructure xmlns="${NS}"><course id="https://example.com/c">${text('title', 'Course', 'en-GB')}${text('description', 'About')}</course>${objectives}${body}</courseStructure>`;

async function failure(xml: string, extra: Record<string, string> = { 'index.html': '' }): Promise<string> {
  try {
    await parsePackage(memorySource({ 'cmi5.xml': xml, ...extra }));
  } catch (e) {
    expect(e).toBeInstanceOf(PackageError);
    return (e as Error).message;
  }
  throw new Error('course structure was imported');
}

describe('cmi5 parsing', () => {
  it('applies the schema defaults and builds blocks → AUs', async () => {
    const xml = course(
      `<block id="https://example.com/b1">${text('title', 'Block 1')}${text('description', 'b')}
         ${au('https://example.com/au1', 'index.html')}
         <block id="https://example.com/b2">${text('title', 'Block 2')}${text('description', 'b')}
           ${au('https://example.com/au2', 'https://cdn.example.com/au2.html?x=1', 'moveOn="Passed" masteryScore=".75" launchMethod="OwnWindow" activityType="http://adlnet.gov/expapi/activities/lesson"', '<objectives><objective idref="https://example.com/o1"/></objectives>')}
         </block>
       </block>`,
      `<objectives><objective id="https://example.com/o1">${text('title', 'Obj')}${text('description', 'o')}</objective></objectives>`,
    );
    const p = await parsePackage(memorySource({ 'cmi5.xml': xml, 'index.html': '' }));
    expectWellFormed(p);
    expect(p.standard).toBe('CMI5');
    expect(countActivities(p.rootActivity, 'AGGREGATION')).toBe(3);
    expect(countActivities(p.rootActivity, 'SCO')).toBe(2);
    expect(p.launchables[0].data).toMatchObject({ moveOn: 'NotApplicable', launchMethod: 'AnyWindow', objectives: [], blockIds: ['https://example.com/b1'] });
    expect(p.launchables[0].data.masteryScore).toBeUndefined();
    expect(p.launchables[1]).toMatchObject({
      href: 'https://cdn.example.com/au2.html',
      parameters: 'x=1',
      data: {
        moveOn: 'Passed',
        masteryScore: 0.75,
        launchMethod: 'OwnWindow',
        activityType: 'http://adlnet.gov/expapi/activities/lesson',
        objectives: ['https://example.com/o1'],
        blockIds: ['https://example.com/b1', 'https://example.com/b2'],
      },
    });
    expect(p.rootActivity.children[0].children[1].children[0].scaledPassingScore).toBe('0.75');
    expect(p.metadata).toEqual({ title: 'Course', titleLanguage: 'en-GB', description: 'About', descriptionLanguage: 'en' });
    expect(p.courseLanguages).toEqual(['en-GB', 'en']);
    expect((p.packageData.cmi5 as { objectives: unknown[] }).objectives).toHaveLength(1);
  });

  it('accepts extension elements and attributes in other namespaces', async () => {
    const xml = course(au('https://example.com/au', 'index.html', 'x:flag="1" xmlns:x="urn:vendor"', '')).replace(
      '</course>',
      '<v:extra xmlns:v="urn:vendor">anything</v:extra></course>',
    );
    await expect(parsePackage(memorySource({ 'cmi5.xml': xml, 'index.html': '' }))).resolves.toMatchObject({ standard: 'CMI5' });
  });

  it('downgrades a missing AU file to a warning with checkFiles: false', async () => {
    const xml = course(au('https://example.com/au', 'missing.html'));
    const p = await parseCmi5(memorySource({ 'cmi5.xml': xml, 'other.html': '' }), { checkFiles: false });
    expect(p.warnings.join()).toMatch(/"missing\.html" is not in the package/);
  });
});

describe('cmi5 validation (13.2.0.0-1 schema rules and others)', () => {
  const id = 'https://example.com/au';
  it.each([
    ['moveOn outside the enumeration', course(au(id, 'index.html', 'moveOn="Done"')), /moveOn="Done"; moveOn must be one of NotApplicable, Passed, Completed, CompletedAndPassed, CompletedOrPassed/],
    ['launchMethod outside the enumeration', course(au(id, 'index.html', 'launchMethod="NewTab"')), /launchMethod must be AnyWindow or OwnWindow/],
    ['masteryScore above 1', course(au(id, 'index.html', 'masteryScore="80"')), /masteryScore="80"; masteryScore must be a decimal from 0 to 1/],
    ['masteryScore not a number', course(au(id, 'index.html', 'masteryScore="high"')), /masteryScore must be a decimal/],
    ['AU without url', course(`<au id="${id}">${text('title', 't')}${text('description', 'd')}</au>`), /<au id="https:\/\/example\.com\/au"> is missing <url>/],
    ['AU without title', course(`<au id="${id}">${text('description', 'd')}<url>index.html</url></au>`), /<au id="https:\/\/example\.com\/au"> is missing <title>/],
    ['AU with elements out of order', course(`<au id="${id}">${text('description', 'd')}${text('title', 't')}<url>index.html</url></au>`), /<description> comes before <title>/],
    ['AU without id', course(`<au>${text('title', 't')}${text('description', 'd')}<url>index.html</url></au>`), /<au> has no id attribute, which is required/],
    ['unknown attribute', course(au(id, 'index.html', 'colour="red"')), /attribute colour="red", which <au> does not define/],
    ['unknown element', course(au(id, 'index.html', '', '<duration>PT1H</duration>')), /may not contain <duration>/],
    ['title without langstring', course(`<au id="${id}"><title/>${text('description', 'd')}<url>index.html</url></au>`), /<title> is missing <langstring>/],
    ['course without AUs', course(''), /<courseStructure> is missing <au> or <block>/],
    ['empty block', course(`<block id="https://example.com/b">${text('title', 't')}${text('description', 'd')}</block>`), /is missing <au> or <block>/],
    ['two courses', course(au(id, 'index.html')).replace('</course>', '</course><course id="https://example.com/c2"/>'), /more than one <course>|<course> is out of place/],
    ['empty url', course(au(id, ' ')), /has an empty <url>/],
    ['non-http absolute url', course(au(id, 'ftp://example.com/a.html')), /must use http or https/],
    ['url with fetch parameter', course(au(id, 'index.html?a=1&amp;fetch=x')), /query string uses "fetch".*8\.1\.0\.0-6/],
    ['objective reference to an undeclared objective', course(au(id, 'index.html', '', '<objectives><objective idref="https://example.com/none"/></objectives>')), /references the objective "https:\/\/example\.com\/none", which the course's <objectives> does not declare/],
    ['wrong root element', '<course id="https://example.com/c"/>', /root element is <course>; the root element of a cmi5 course structure must be <courseStructure>/],
  ])('rejects %s', async (_name, xml, re) => {
    const msg = await failure(xml);
    expect(msg).toMatch(/^cmi5\.xml(, line \d+)?: /);
    expect(msg).toMatch(re);
  });

  it('names the schema requirement for structural errors', async () => {
    expect(await failure(course(au(id, 'index.html', 'moveOn="Done"')))).toMatch(/cmi5 13\.2\.0\.0-1/);
  });

  it('treats a cmi5.xml uploaded on its own as standalone, even with an .xml hint', async () => {
    const xml = course(au(id, 'https://example.com/index.html'));
    const p = await parsePackage(memorySource({ 'cmi5.xml': xml }), { fileName: 'course.xml' });
    expect((p.packageData.cmi5 as { standalone: boolean }).standalone).toBe(true);
  });
});
