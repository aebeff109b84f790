/**
 * cmi5 course structures (`cmi5.xml`, cmi5 spec section 13/14), zipped with their content or imported on their own.
 *
 * Validation follows the cmi5 spec and the ADL CATAPULT LMS test suite; every message names the spec requirement:
 *  - 13.2.0.0-1  the course structure must be valid against the CourseStructure XSD — hand-checked here (no XSD engine):
 *                element order and cardinality of every sequence, required attributes, enumerations (moveOn,
 *                launchMethod), masteryScore a decimal in [0, 1], no unknown elements/attributes in the cmi5 namespace
 *                (elements and attributes in other namespaces are allowed extensions, as the XSD's ##other wildcards);
 *  - 3.0.0.0-1   course, block, AU and objective ids must be IRIs;
 *  - 13.1.2.0-1 / 13.1.4.0-1  ids must be unique within the course structure;
 *  - 13.1.4.0-2  an AU url must be a valid URL;
 *  - 8.1.0.0-6   an AU url query must not use the launch parameter names endpoint, fetch, actor, registration, activityId;
 *  - 14.2.0.0-1  a course structure imported without a zip must use absolute AU urls;
 *  - 14.1.0.0-4  a relative AU url in a zip must name a file in the package.
 */
import { attributeValue, elementText, type XmlElement } from '../../../platform/xml/safe-xml';
import { LanguageSet } from './languages';
import { checkLocalHref, isAbsoluteUrl, isJunkFile, splitUrl } from './package-paths';
import { PackageError, type CourseActivity, type LaunchableActivity, type PackageSource, type ParsedPackage } from './package-types';
import { readPackageXml } from './package-xml';
import type { ParseOptions } from './parse-options';

export const CMI5_MANIFEST = 'cmi5.xml';
export const CMI5_NAMESPACES = ['https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd', 'http://www.adlnet.gov/cmi5/CourseStructure.xsd'];
export const MOVE_ON_VALUES = ['NotApplicable', 'Passed', 'Completed', 'CompletedAndPassed', 'CompletedOrPassed'] as const;
export const LAUNCH_METHOD_VALUES = ['AnyWindow', 'OwnWindow'] as const;
const LAUNCH_PARAMETER_NAMES = ['endpoint', 'fetch', 'actor', 'registration', 'activityId'];

export interface Cmi5ParseOptions extends ParseOptions {
  /** The course structure was imported on its own (no zip): every AU url must be absolute. Default: the package has no other file. */
  standalone?: boolean;
}

export function findCmi5Manifest(source: PackageSource): string | undefined {
  if (source.has(CMI5_MANIFEST)) return CMI5_MANIFEST;
  return source.files().find((f) => f.toLowerCase() === CMI5_MANIFEST);
}

interface Slot {
  names: string[];
  min: number;
  max: number;
}
const one = (name: string): Slot => ({ names: [name], min: 1, max: 1 });
const optional = (name: string): Slot => ({ names: [name], min: 0, max: 1 });

const SEQUENCES: Record<string, Slot[]> = {
  courseStructure: [one('course'), optional('objectives'), { names: ['au', 'block'], min: 1, max: Infinity }],
  course: [one('title'), one('description'), optional('languages')],
  block: [one('title'), one('description'), optional('objectives'), { names: ['au', 'block'], min: 1, max: Infinity }],
  au: [one('title'), one('description'), optional('objectives'), one('url'), optional('launchParameters'), optional('entitlementKey')],
  courseObjectives: [{ names: ['objective'], min: 1, max: Infinity }],
  courseObjective: [one('title'), one('description')], // xs:all in the XSD: either order
  objectiveRefs: [{ names: ['objective'], min: 1, max: Infinity }],
  text: [{ names: ['langstring'], min: 1, max: Infinity }],
};
const ATTRIBUTES: Record<string, string[]> = {
  courseStructure: [],
  course: ['id'],
  block: ['id'],
  au: ['id', 'moveOn', 'masteryScore', 'launchMethod', 'activityType', 'passIsFinal', 'authenticationMethod'],
  courseObjective: ['id'],
  objectiveRef: ['idref'],
  langstring: ['lang'],
};
const ORDER_HINT: Record<string, string> = {
  courseStructure: 'course, objectives (optional), then au and block elements',
  course: 'title, description',
  block: 'title, description, objectives (optional), then au and block elements',
  au: 'title, description, objectives (optional), url, launchParameters (optional), entitlementKey (optional)',
  courseObjectives: 'objective elements',
  courseObjective: 'title and description',
  objectiveRefs: 'objective elements',
  text: 'langstring elements',
};

function isIri(s: string | undefined): boolean {
  return !!s && /^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s<>"{}|\\^`]+$/.test(s);
}

const DECIMAL_RE = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

export async function parseCmi5(source: PackageSource, options: Cmi5ParseOptions = {}): Promise<ParsedPackage> {
  const path = findCmi5Manifest(source);
  if (!path) throw new PackageError('No cmi5.xml at the top level of the package: a cmi5 package needs cmi5.xml at the root of the zip');
  const checkFiles = options.checkFiles !== false;
  const standalone = options.standalone ?? source.files().filter((f) => !isJunkFile(f)).every((f) => f === path);
  const doc = await readPackageXml(source, path);
  const root = doc.root;
  const at = (el: XmlElement): string => (el.line ? `${path}, line ${el.line}` : path);
  const fail = (el: XmlElement, msg: string): never => {
    throw new PackageError(`${at(el)}: ${msg}`);
  };
  const schemaFail = (el: XmlElement, msg: string): never =>
    fail(el, `the course structure is not valid against the cmi5 CourseStructure schema (cmi5 13.2.0.0-1): ${msg}`);

  if (root.local !== 'courseStructure') {
    fail(root, `the root element is <${root.name}>; the root element of a cmi5 course structure must be <courseStructure>`);
  }
  const warnings: string[] = [];
  const ns = root.ns;
  if (!CMI5_NAMESPACES.includes(ns)) {
    warnings.push(`${path}: <courseStructure> is in the namespace "${ns}" instead of "${CMI5_NAMESPACES[0]}"`);
  }
  const isCmi5 = (el: XmlElement): boolean => el.ns === ns;
  const structural = (el: XmlElement): XmlElement[] => el.children.filter(isCmi5);
  const describe = (el: XmlElement): string => {
    const id = attributeValue(el, 'id');
    return id ? `<${el.local} id="${id}">` : `<${el.local}>`;
  };

  // ------------------------------------------------------------------ schema pass ------------------------------------
  const checkSequence = (el: XmlElement, kind: string): void => {
    const slots = SEQUENCES[kind];
    const counts = slots.map(() => 0);
    let si = 0;
    const kids = structural(el);
    const inAnyOrder = kind === 'courseObjective';
    for (let ci = 0; ci < kids.length; ci++) {
      const child = kids[ci];
      if (inAnyOrder) {
        const idx = slots.findIndex((s) => s.names.includes(child.local));
        if (idx < 0) schemaFail(child, `${describe(el)} may not contain <${child.local}>; it contains ${ORDER_HINT[kind]}`);
        if (++counts[idx] > slots[idx].max) schemaFail(child, `${describe(el)} has more than one <${child.local}>`);
        continue;
      }
      while (si < slots.length && !slots[si].names.includes(child.local)) {
        if (counts[si] < slots[si].min) {
          const expected = slots[si].names.map((n) => `<${n}>`).join(' or ');
          const known = slots.some((s) => s.names.includes(child.local));
          const laterThere = kids.slice(ci + 1).some((k) => slots[si].names.includes(k.local));
          if (known && !laterThere) {
            schemaFail(el, `${describe(el)} is missing ${expected} (required: ${ORDER_HINT[kind]})`);
          }
          schemaFail(
            child,
            known
              ? `in ${describe(el)}, <${child.local}> comes before ${expected}; the elements of <${el.local}> must appear in the order ${ORDER_HINT[kind]}`
              : `${describe(el)} may not contain <${child.local}>; it contains ${ORDER_HINT[kind]}`,
          );
        }
        si++;
      }
      if (si === slots.length) {
        const known = slots.some((s) => s.names.includes(child.local));
        schemaFail(
          child,
          known
            ? `in ${describe(el)}, <${child.local}> is out of place; the elements of <${el.local}> must appear in the order ${ORDER_HINT[kind]}`
            : `${describe(el)} may not contain <${child.local}>; it contains ${ORDER_HINT[kind]}`,
        );
      }
      if (++counts[si] > slots[si].max) schemaFail(child, `${describe(el)} has more than one <${child.local}>`);
    }
    for (let i = 0; i < slots.length; i++) {
      if (counts[i] < slots[i].min) {
        schemaFail(el, `${describe(el)} is missing ${slots[i].names.map((n) => `<${n}>`).join(' or ')} (required: ${ORDER_HINT[kind]})`);
      }
    }
  };
  const checkAttributes = (el: XmlElement, kind: string, required: string[] = []): void => {
    const allowed = ATTRIBUTES[kind] ?? [];
    for (const a of el.attributes) {
      if (a.ns !== '' || a.prefix !== '') continue; // namespaced attributes are allowed extensions (##other)
      if (!allowed.includes(a.local)) {
        schemaFail(el, `${describe(el)} has the attribute ${a.local}="${a.value}", which <${el.local}> does not define${allowed.length ? ` (allowed: ${allowed.join(', ')})` : ''}`);
      }
    }
    for (const r of required) {
      if (attributeValue(el, r) === undefined) schemaFail(el, `<${el.local}> has no ${r} attribute, which is required`);
    }
  };
  const checkText = (el: XmlElement): void => {
    checkAttributes(el, 'text');
    checkSequence(el, 'text');
    for (const ls of structural(el)) {
      checkAttributes(ls, 'langstring');
      if (ls.children.some(isCmi5)) schemaFail(ls, `<langstring> in <${el.local}> must contain only text`);
    }
  };
  const checkObjectiveRefs = (el: XmlElement): void => {
    checkSequence(el, 'objectiveRefs');
    for (const o of structural(el)) checkAttributes(o, 'objectiveRef');
  };
  const checkAu = (au: XmlElement): void => {
    checkAttributes(au, 'au', ['id']);
    checkSequence(au, 'au');
    for (const c of structural(au)) {
      if (c.local === 'title' || c.local === 'description') checkText(c);
      else if (c.local === 'objectives') checkObjectiveRefs(c);
      else if (c.children.some(isCmi5)) schemaFail(c, `<${c.local}> in ${describe(au)} must contain only text`);
    }
    const moveOn = attributeValue(au, 'moveOn');
    if (moveOn !== undefined && !(MOVE_ON_VALUES as readonly string[]).includes(moveOn)) {
      schemaFail(au, `${describe(au)} has moveOn="${moveOn}"; moveOn must be one of ${MOVE_ON_VALUES.join(', ')}`);
    }
    const launchMethod = attributeValue(au, 'launchMethod');
    if (launchMethod !== undefined && !(LAUNCH_METHOD_VALUES as readonly string[]).includes(launchMethod)) {
      schemaFail(au, `${describe(au)} has launchMethod="${launchMethod}"; launchMethod must be AnyWindow or OwnWindow`);
    }
    const ms = attributeValue(au, 'masteryScore');
    if (ms !== undefined) {
      const t = ms.trim();
      if (!DECIMAL_RE.test(t) || Number(t) < 0 || Number(t) > 1) {
        schemaFail(au, `${describe(au)} has masteryScore="${ms}"; masteryScore must be a decimal from 0 to 1 (e.g. 0.8)`);
      }
    }
    const pif = attributeValue(au, 'passIsFinal');
    if (pif !== undefined && !['true', 'false', '1', '0'].includes(pif.trim())) {
      schemaFail(au, `${describe(au)} has passIsFinal="${pif}"; it must be true or false`);
    }
  };
  const checkBlock = (block: XmlElement): void => {
    checkAttributes(block, 'block', ['id']);
    checkSequence(block, 'block');
    for (const c of structural(block)) {
      if (c.local === 'title' || c.local === 'description') checkText(c);
      else if (c.local === 'objectives') checkObjectiveRefs(c);
      else if (c.local === 'au') checkAu(c);
      else if (c.local === 'block') checkBlock(c);
    }
  };
  checkAttributes(root, 'courseStructure');
  checkSequence(root, 'courseStructure');
  for (const c of structural(root)) {
    if (c.local === 'course') {
      checkAttributes(c, 'course', ['id']);
      checkSequence(c, 'course');
      for (const t of structural(c)) if (t.local !== 'languages') checkText(t);
    } else if (c.local === 'objectives') {
      checkSequence(c, 'courseObjectives');
      for (const o of structural(c)) {
        checkAttributes(o, 'courseObjective', ['id']);
        checkSequence(o, 'courseObjective');
        for (const t of structural(o)) checkText(t);
      }
    } else if (c.local === 'au') checkAu(c);
    else if (c.local === 'block') checkBlock(c);
  }

  // ------------------------------------------------------------------ semantic pass ----------------------------------
  const languages = new LanguageSet();
  const texts = (el: XmlElement | undefined): { value: string; lang?: string }[] =>
    el
      ? structural(el).map((ls) => {
          const lang = attributeValue(ls, 'lang')?.trim() || undefined;
          languages.add(lang);
          return { value: (elementText(ls) ?? '').replace(/\s+/g, ' '), lang };
        })
      : [];
  const textOf = (el: XmlElement, local: string): { value: string; lang?: string } | undefined => {
    const child = structural(el).find((c) => c.local === local);
    return texts(child).find((t) => t.value !== '');
  };
  const textMap = (el: XmlElement, local: string): Record<string, string> =>
    Object.fromEntries(texts(structural(el).find((c) => c.local === local)).map((t) => [t.lang ?? 'und', t.value]));

  const ids = new Map<string, string>(); // id → kind, for uniqueness
  const claimId = (el: XmlElement, kind: string, attrName = 'id'): string => {
    const id = (attributeValue(el, attrName) ?? '').trim();
    if (!isIri(id)) {
      fail(el, `the ${kind} id "${id}" is not an IRI; cmi5 requires course, block, AU and objective ids to be absolute IRIs such as https://example.com/course/1 (cmi5 3.0.0.0-1)`);
    }
    const prior = ids.get(id);
    if (prior) {
      const req = kind === 'AU' ? '13.1.4.0-1' : '13.1.2.0-1';
      fail(el, `the ${kind} id "${id}" is already used by ${prior === kind ? 'another' : 'a'} ${prior}; ids must be unique within the course structure (cmi5 ${req})`);
    }
    ids.set(id, kind);
    return id;
  };

  const courseEl = structural(root).find((c) => c.local === 'course') as XmlElement;
  const courseId = claimId(courseEl, 'course');
  const courseTitle = textOf(courseEl, 'title');
  const courseDescription = textOf(courseEl, 'description');

  const objectives: { id: string; title: Record<string, string>; description: Record<string, string> }[] = [];
  const objectivesEl = structural(root).find((c) => c.local === 'objectives');
  if (objectivesEl) {
    for (const o of structural(objectivesEl)) {
      objectives.push({ id: claimId(o, 'objective'), title: textMap(o, 'title'), description: textMap(o, 'description') });
    }
  }
  const objectiveIds = new Set(objectives.map((o) => o.id));
  const objectiveRefs = (el: XmlElement): string[] => {
    const refsEl = structural(el).find((c) => c.local === 'objectives');
    if (!refsEl) return [];
    return structural(refsEl).map((o) => {
      const ref = (attributeValue(o, 'idref') ?? '').trim();
      if (!isIri(ref)) fail(o, `the objective reference idref="${ref}" in ${describe(el)} is not an IRI (cmi5 3.0.0.0-1)`);
      if (!objectiveIds.has(ref)) fail(o, `${describe(el)} references the objective "${ref}", which the course's <objectives> does not declare`);
      return ref;
    });
  };

  const launchables: LaunchableActivity[] = [];
  const blocks: Record<string, unknown>[] = [];

  const buildAu = (au: XmlElement, blockPath: string[]): CourseActivity => {
    const id = claimId(au, 'AU');
    const title = textOf(au, 'title');
    const description = textOf(au, 'description');
    const urlEl = structural(au).find((c) => c.local === 'url') as XmlElement;
    const url = (elementText(urlEl) ?? '').trim();
    if (url === '') fail(urlEl, `AU "${id}" has an empty <url>; the url is required (cmi5 13.1.4.0-2)`);
    if (/[\s<>"{}|\\^`]/.test(url)) {
      fail(urlEl, `AU "${id}" has the url "${url}", which is not a valid URL (it contains ${/\s/.test(url) ? 'whitespace' : 'a character that must be percent-encoded'}; cmi5 13.1.4.0-2)`);
    }
    const absolute = isAbsoluteUrl(url);
    let parsed: URL;
    try {
      parsed = absolute ? new URL(url) : new URL(url, 'http://package.invalid/');
    } catch {
      return fail(urlEl, `AU "${id}" has the url "${url}", which is not a valid URL (cmi5 13.1.4.0-2)`);
    }
    if (absolute && !/^https?:$/.test(parsed.protocol)) {
      fail(urlEl, `AU "${id}" has the url "${url}"; an absolute AU url must use http or https (cmi5 13.1.4.0-2)`);
    }
    const conflicts = LAUNCH_PARAMETER_NAMES.filter((n) => parsed.searchParams.has(n));
    if (conflicts.length) {
      fail(
        urlEl,
        `AU "${id}" has the url "${url}", whose query string uses ${conflicts.map((c) => `"${c}"`).join(', ')}; the names endpoint, fetch, actor, registration and activityId are reserved for the launch parameters the LMS adds (cmi5 8.1.0.0-6)`,
      );
    }
    if (!absolute) {
      if (standalone) {
        fail(
          urlEl,
          `AU "${id}" has the relative url "${url}", but this course structure was imported on its own, not in a zip with its content, so every AU url must be an absolute URL such as https://example.com/au/index.html (cmi5 14.2.0.0-1); upload a zip with cmi5.xml and the AU files instead`,
        );
      }
      const check = checkLocalHref(source, url);
      if (check && !check.ok) {
        const msg = `AU "${id}" has the relative url "${url}", but ${check.reason} (cmi5 14.1.0.0-4: relative AU urls must reference files in the package)`;
        if (checkFiles) fail(urlEl, msg);
        warnings.push(`${at(urlEl)}: ${msg}`);
      }
    }

    const moveOn = attributeValue(au, 'moveOn') ?? 'NotApplicable';
    const launchMethod = attributeValue(au, 'launchMethod') ?? 'AnyWindow';
    const msText = attributeValue(au, 'masteryScore')?.trim();
    const masteryScore = msText !== undefined ? Number(msText) : undefined;
    const activityType = attributeValue(au, 'activityType')?.trim() || undefined;
    const launchParameters = elementText(structural(au).find((c) => c.local === 'launchParameters'));
    const entitlementKey = elementText(structural(au).find((c) => c.local === 'entitlementKey'));
    const passIsFinal = attributeValue(au, 'passIsFinal');
    const refs = objectiveRefs(au);
    const { path: urlPath, query, fragment } = splitUrl(url);
    const auTitle = title?.value ?? id;
    if (!title) warnings.push(`${at(au)}: AU "${id}" has an empty title; its id is shown instead`);

    const activity: CourseActivity = { externalIdentifier: id, itemIdentifier: id, activityType: 'SCO', href: url, title: auTitle, children: [] };
    if (masteryScore !== undefined) activity.scaledPassingScore = String(masteryScore);
    const data: Record<string, unknown> = {
      url,
      moveOn,
      launchMethod,
      ...(masteryScore !== undefined ? { masteryScore } : {}),
      ...(activityType ? { activityType } : {}),
      ...(launchParameters !== undefined ? { launchParameters } : {}),
      ...(entitlementKey !== undefined ? { entitlementKey } : {}),
      ...(passIsFinal !== undefined ? { passIsFinal: ['true', '1'].includes(passIsFinal.trim()) } : {}),
      objectives: refs,
      blockIds: blockPath,
      title: textMap(au, 'title'),
      description: textMap(au, 'description'),
      ...(description ? { descriptionText: description.value } : {}),
      ...(fragment !== undefined ? { urlFragment: fragment } : {}),
    };
    launchables.push({ id, title: auTitle, href: urlPath, ...(query ? { parameters: query } : {}), data });
    return activity;
  };

  const buildBlock = (block: XmlElement, parentPath: string[]): CourseActivity => {
    const id = claimId(block, 'block');
    const title = textOf(block, 'title');
    const refs = objectiveRefs(block);
    blocks.push({
      id,
      parentId: parentPath[parentPath.length - 1],
      title: textMap(block, 'title'),
      description: textMap(block, 'description'),
      objectives: refs,
    });
    const path = [...parentPath, id];
    return {
      externalIdentifier: id,
      itemIdentifier: id,
      activityType: 'AGGREGATION',
      title: title?.value ?? id,
      children: buildChildren(block, path),
    };
  };
  const buildChildren = (el: XmlElement, path: string[]): CourseActivity[] =>
    structural(el)
      .filter((c) => c.local === 'au' || c.local === 'block')
      .map((c) => (c.local === 'au' ? buildAu(c, path) : buildBlock(c, path)));

  const children = buildChildren(root, []);
  const title = courseTitle?.value ?? launchables[0]?.title ?? courseId;
  if (!courseTitle) warnings.push(`${at(courseEl)}: the course has an empty title`);

  return {
    standard: 'CMI5',
    title,
    metadata: {
      title,
      ...(courseTitle?.lang ? { titleLanguage: courseTitle.lang } : {}),
      ...(courseDescription ? { description: courseDescription.value } : {}),
      ...(courseDescription?.lang ? { descriptionLanguage: courseDescription.lang } : {}),
    },
    rootActivity: { externalIdentifier: courseId, itemIdentifier: courseId, activityType: 'AGGREGATION', title, children },
    launchables,
    xapiActivityId: courseId,
    packageData: {
      cmi5: {
        courseId,
        namespace: ns,
        standalone,
        title: textMap(courseEl, 'title'),
        description: textMap(courseEl, 'description'),
        objectives,
        blocks,
      },
    },
    warnings,
    courseLanguages: languages.toArray(),
  };
}
