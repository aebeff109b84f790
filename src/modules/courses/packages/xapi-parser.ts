/**
 * xAPI (Tin Can) packages: `tincan.xml` at the package root. The launchable is the activity with a `<launch>` element
 * (an activity of type http://adlnet.gov/expapi/activities/course is preferred); its id is the course's xapiActivityId.
 * The tree is that single activity. Elements are matched by local name (tincan.xml namespaces vary between tools).
 */
import { attributeValue, childElement, childElements, elementText, type XmlElement } from '../../../platform/xml/safe-xml';
import { LanguageSet } from './languages';
import { checkLocalHref } from './package-paths';
import { PackageError, type CourseActivity, type PackageSource, type ParsedPackage } from './package-types';
import { readPackageXml } from './package-xml';
import type { ParseOptions } from './parse-options';

export const XAPI_MANIFEST = 'tincan.xml';
const COURSE_TYPE = 'http://adlnet.gov/expapi/activities/course';

export function findXapiManifest(source: PackageSource): string | undefined {
  if (source.has(XAPI_MANIFEST)) return XAPI_MANIFEST;
  return source.files().find((f) => f.toLowerCase() === XAPI_MANIFEST);
}

interface LangValue {
  value: string;
  lang?: string;
}

function langValues(parent: XmlElement, local: string): LangValue[] {
  return childElements(parent, local, undefined, true)
    .map((e) => ({ value: elementText(e) ?? '', lang: attributeValue(e, 'lang')?.trim() || undefined }))
    .filter((v) => v.value !== '');
}

function pick(values: LangValue[]): LangValue | undefined {
  return values.find((v) => v.lang && /^en\b/i.test(v.lang)) ?? values[0];
}

export async function parseXapi(source: PackageSource, options: ParseOptions = {}): Promise<ParsedPackage> {
  const path = findXapiManifest(source);
  if (!path) throw new PackageError('No tincan.xml at the top level of the package: an xAPI (Tin Can) package needs tincan.xml at the root of the zip');
  const checkFiles = options.checkFiles !== false;
  const doc = await readPackageXml(source, path);
  const root = doc.root;
  if (root.local.toLowerCase() !== 'tincan') {
    throw new PackageError(`${path}: the root element is <${root.name}>; the root element of tincan.xml must be <tincan>`);
  }
  const warnings: string[] = [];
  const languages = new LanguageSet();
  const activitiesEl = childElement(root, 'activities', undefined, true);
  const activityEls = activitiesEl ? childElements(activitiesEl, 'activity', undefined, true) : [];
  if (activityEls.length === 0) {
    throw new PackageError(`${path} has no <activities><activity> element; an xAPI package needs an activity with an id, a name and a <launch> URL`);
  }

  const activities = activityEls.map((el) => {
    const names = langValues(el, 'name');
    const descriptions = langValues(el, 'description');
    const launchEl = childElement(el, 'launch', undefined, true);
    for (const v of [...names, ...descriptions]) languages.add(v.lang);
    const launchLang = launchEl ? attributeValue(launchEl, 'lang')?.trim() : undefined;
    languages.add(launchLang);
    return {
      el,
      id: attributeValue(el, 'id')?.trim() || undefined,
      type: attributeValue(el, 'type')?.trim() || undefined,
      names,
      descriptions,
      launch: elementText(launchEl),
      launchLang,
    };
  });

  const launchable = activities.filter((a) => a.launch);
  if (launchable.length === 0) {
    throw new PackageError(`${path}: no <activity> has a <launch> element, so there is nothing to launch; add <launch>index.html</launch> (or an absolute URL) to the course activity`);
  }
  const chosen = launchable.find((a) => a.type === COURSE_TYPE) ?? launchable[0];
  if (launchable.length > 1) {
    warnings.push(`${path} has ${launchable.length} activities with a <launch> element; the course launches "${chosen.id ?? '(no id)'}"`);
  }
  if (!chosen.id) {
    throw new PackageError(`${where(path, chosen.el)}: the activity with <launch>${chosen.launch}</launch> has no id attribute; the xAPI activity id (an IRI) is required`);
  }
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:\S*$/.test(chosen.id)) {
    throw new PackageError(`${where(path, chosen.el)}: the activity id "${chosen.id}" is not an IRI (xAPI activity ids must be absolute IRIs such as https://example.com/course/1)`);
  }
  const href = chosen.launch as string;
  if (/\s/.test(href)) throw new PackageError(`${where(path, chosen.el)}: the launch URL "${href}" contains whitespace; encode spaces as %20`);
  const check = checkLocalHref(source, href);
  if (check && !check.ok) {
    const msg = `${where(path, chosen.el)}: the course launches "${href}", but ${check.reason}`;
    if (checkFiles) throw new PackageError(msg);
    warnings.push(msg);
  }

  const name = pick(chosen.names);
  const description = pick(chosen.descriptions);
  const title = name?.value ?? chosen.id;
  if (!name) warnings.push(`${path}: the course activity has no <name>; its id is shown as the title`);

  const rootActivity: CourseActivity = {
    externalIdentifier: chosen.id,
    itemIdentifier: chosen.id,
    activityType: 'SCO',
    href,
    title,
    children: [],
  };
  return {
    standard: 'XAPI',
    title,
    metadata: {
      title,
      ...(name?.lang ? { titleLanguage: name.lang } : {}),
      ...(description ? { description: description.value } : {}),
      ...(description?.lang ? { descriptionLanguage: description.lang } : {}),
    },
    rootActivity,
    launchables: [
      {
        id: chosen.id,
        title,
        href,
        data: { activityId: chosen.id, activityType: chosen.type, ...(chosen.launchLang ? { launchLanguage: chosen.launchLang } : {}) },
      },
    ],
    xapiActivityId: chosen.id,
    packageData: {
      activities: activities.map((a) => ({
        id: a.id,
        type: a.type,
        name: Object.fromEntries(a.names.map((n) => [n.lang ?? 'und', n.value])),
        description: Object.fromEntries(a.descriptions.map((n) => [n.lang ?? 'und', n.value])),
        ...(a.launch ? { launch: a.launch } : {}),
      })),
    },
    warnings,
    courseLanguages: languages.toArray(),
  };
}

function where(path: string, el: XmlElement): string {
  return el.line ? `${path}, line ${el.line}` : path;
}
