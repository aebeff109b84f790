/**
 * SCORM 1.2 and SCORM 2004 (2nd, 3rd, 4th edition) content packages: `imsmanifest.xml` at the package root.
 *
 * The activity tree is the default organization (organizations@default, else the first): items with child items are
 * AGGREGATIONs, leaf items are SCO or ASSET after their resource's adlcp:scormtype. Launchables are the items whose
 * resource has an href (xml:base of manifest, resources and resource combined, item `parameters` kept apart).
 * SCORM 2004 sequencing (imsss:, adlseq:, adlnav:) is kept whole as canonical JSON (see package-xml.ts).
 */
import {
  attributeValue,
  childElement,
  childElements,
  elementText,
  walkElements,
  type XmlDocument,
  type XmlElement,
} from '../../../platform/xml/safe-xml';
import { LanguageSet } from './languages';
import { readLom } from './lom';
import { checkLocalHref, combineRef, isAbsoluteUrl } from './package-paths';
import {
  PackageError,
  type CourseActivity,
  type CourseMetadata,
  type LaunchableActivity,
  type LearningStandard,
  type PackageSource,
  type ParsedPackage,
} from './package-types';
import { familyOf, inFamily, isCpNode, readPackageXml, xmlBaseOf, xmlLangOf, xmlToJson, type NsFamily, type XmlJson } from './package-xml';
import type { ParseOptions } from './parse-options';

export const SCORM_MANIFEST = 'imsmanifest.xml';

/** `imsmanifest.xml` at the package root (exact name, else the same name in another letter case). */
export function findScormManifest(source: PackageSource): string | undefined {
  if (source.has(SCORM_MANIFEST)) return SCORM_MANIFEST;
  return source.files().find((f) => f.toLowerCase() === SCORM_MANIFEST);
}

const cp = (el: XmlElement | undefined, local: string): XmlElement | undefined => (el ? childElement(el, local, isCpNode) : undefined);
const cps = (el: XmlElement | undefined, local: string): XmlElement[] => (el ? childElements(el, local, isCpNode) : []);
const ext = (el: XmlElement | undefined, family: NsFamily, local: string): XmlElement | undefined =>
  el ? childElement(el, local, inFamily(family), true) : undefined;
const extAttr = (el: XmlElement, family: NsFamily, local: string): string | undefined => attributeValue(el, local, inFamily(family), true);
const attr = (el: XmlElement, local: string): string | undefined => {
  const v = attributeValue(el, local);
  return v === undefined || v.trim() === '' ? undefined : v.trim();
};

interface ResourceInfo {
  id: string;
  el: XmlElement;
  rawHref?: string;
  href?: string;
  scormType?: string;
  bases: (string | undefined)[];
  dependencies: string[];
}

/** Versions named by `metadata/schemaversion`. */
function standardFromSchemaVersion(v: string): LearningStandard | undefined {
  const s = v.trim().toLowerCase().replace(/\s+/g, ' ');
  if (s === '1.2' || s === '1.1' || s === '1.0') return 'SCORM12';
  if (s === 'cam 1.3' || s === '1.3' || s.includes('2nd edition')) return 'SCORM20042NDEDITION';
  if (s.includes('2004') && s.includes('4th')) return 'SCORM20044THEDITION';
  if (s.includes('2004') && s.includes('3rd')) return 'SCORM20043RDEDITION';
  if (s.includes('2004') && s.includes('2nd')) return 'SCORM20042NDEDITION';
  return undefined;
}

/** Elements and attributes that only the SCORM 2004 4th Edition schemas define. */
function hasFourthEditionMarkers(root: XmlElement): boolean {
  for (const el of walkElements(root)) {
    const f = familyOf(el);
    const local = el.local.toLowerCase();
    if (f === 'adlcp' && (local === 'data' || local === 'map')) return true;
    if (f === 'adlseq' && (local === 'objectives' || local === 'objective')) return true;
    if (f === 'adlcp' && local === 'completionthreshold' && el.attributes.some((a) => /^(completedByMeasure|minProgressMeasure|progressWeight)$/i.test(a.local))) {
      return true;
    }
    if (el.attributes.some((a) => familyOf(a) === 'adlcp' && a.local.toLowerCase() === 'shareddataglobaltosystem')) return true;
  }
  return false;
}

function detectStandard(doc: XmlDocument, path: string, warnings: string[]): { standard: LearningStandard; schemaVersion?: string } {
  const root = doc.root;
  const schemaVersion = elementText(cp(cp(root, 'metadata'), 'schemaversion'));
  if (schemaVersion) {
    const s = standardFromSchemaVersion(schemaVersion);
    if (s) {
      if (/^1\.[01]$/.test(schemaVersion.trim())) warnings.push(`${path} declares SCORM ${schemaVersion.trim()}; it is imported as SCORM 1.2`);
      return { standard: s, schemaVersion };
    }
    warnings.push(`${path}: schemaversion "${schemaVersion}" is not a SCORM version LCDS knows ("1.2", "CAM 1.3", "2004 3rd Edition", "2004 4th Edition"); the version was inferred from the manifest's namespaces`);
  }
  const families = new Set<string>();
  for (const uri of doc.declaredNamespaces) {
    const f = familyOf({ ns: uri, prefix: '' });
    if (f) families.add(f);
    if (/adlcp_rootv1p2/i.test(uri)) families.add('scorm12');
  }
  const has2004 = ['imsss', 'adlseq', 'adlnav'].some((f) => families.has(f)) || [...doc.declaredNamespaces].some((u) => /adlcp_v1p3|imscp_v1p1/i.test(u));
  if (families.has('scorm12') && !has2004) return { standard: 'SCORM12', schemaVersion };
  if (has2004) return { standard: hasFourthEditionMarkers(root) ? 'SCORM20044THEDITION' : 'SCORM20043RDEDITION', schemaVersion };
  if (!schemaVersion) warnings.push(`${path} names no SCORM version (metadata/schemaversion) and no SCORM namespace; it is imported as SCORM 1.2`);
  return { standard: 'SCORM12', schemaVersion };
}

function decimalString(n: number): string {
  return String(Number(n.toFixed(7)));
}

function where(path: string, el: XmlElement): string {
  return el.line ? `${path}, line ${el.line}` : path;
}

export async function parseScorm(source: PackageSource, options: ParseOptions = {}): Promise<ParsedPackage> {
  const path = findScormManifest(source);
  if (!path) {
    throw new PackageError('No imsmanifest.xml at the top level of the package: a SCORM package needs imsmanifest.xml at the root of the zip');
  }
  const checkFiles = options.checkFiles !== false;
  const doc = await readPackageXml(source, path);
  const root = doc.root;
  if (root.local !== 'manifest') {
    throw new PackageError(`${path}: the root element is <${root.name}>; the root element of a SCORM manifest must be <manifest> (IMS Content Packaging)`);
  }
  const warnings: string[] = [];
  const languages = new LanguageSet();
  const { standard, schemaVersion } = detectStandard(doc, path, warnings);
  const is12 = standard === 'SCORM12';

  // ---- resources ----
  const manifestBase = xmlBaseOf(root);
  const resourcesEl = cp(root, 'resources');
  const resourcesBase = xmlBaseOf(resourcesEl);
  const resources = new Map<string, ResourceInfo>();
  cps(resourcesEl, 'resource').forEach((r, i) => {
    const id = attr(r, 'identifier');
    const rawHref = attributeValue(r, 'href')?.trim() || undefined;
    if (!id) {
      throw new PackageError(
        `${where(path, r)}: <resource> #${i + 1}${rawHref ? ` (href "${rawHref}")` : ''} has no identifier attribute; every resource needs one so items can reference it`,
      );
    }
    if (resources.has(id)) throw new PackageError(`${where(path, r)}: two resources have the identifier "${id}"; resource identifiers must be unique`);
    const bases = [manifestBase, resourcesBase, xmlBaseOf(r)];
    resources.set(id, {
      id,
      el: r,
      rawHref,
      href: rawHref ? combineRef(bases, rawHref) : undefined,
      scormType: extAttr(r, 'adlcp', 'scormtype')?.trim().toLowerCase() || undefined,
      bases,
      dependencies: cps(r, 'dependency')
        .map((d) => attr(d, 'identifierref'))
        .filter((x): x is string => !!x),
    });
  });

  // ---- organizations ----
  const orgsEl = cp(root, 'organizations');
  if (!orgsEl) {
    throw new PackageError(`${path} has no <organizations> element: a SCORM course needs an <organization> whose <item>s reference launchable <resource>s`);
  }
  const orgEls = cps(orgsEl, 'organization');
  if (orgEls.length === 0) {
    throw new PackageError(`${path}: <organizations> contains no <organization>; a SCORM course needs one organization whose <item>s reference launchable <resource>s`);
  }
  const defaultOrgId = attr(orgsEl, 'default');
  orgEls.forEach((o, i) => {
    if (!attr(o, 'identifier')) {
      const t = elementText(cp(o, 'title'));
      throw new PackageError(
        `${where(path, o)}: <organization> #${i + 1}${t ? ` ("${t}")` : ''} has no identifier attribute; IMS Content Packaging requires an identifier on every organization` +
          (defaultOrgId ? ` (<organizations default="${defaultOrgId}"> must name one)` : ''),
      );
    }
  });
  let orgEl = orgEls[0];
  if (defaultOrgId) {
    const found = orgEls.find((o) => attr(o, 'identifier') === defaultOrgId);
    if (found) orgEl = found;
    else warnings.push(`${path}: <organizations default="${defaultOrgId}"> names no organization; the first organization ("${attr(orgEl, 'identifier')}") is used`);
  }
  const orgId = attr(orgEl, 'identifier') as string;
  const orgTitle = elementText(cp(orgEl, 'title'));

  // ---- sequencing collection (2004) ----
  const collection = new Map<string, XmlElement>();
  const collectionEl = ext(root, 'imsss', 'sequencingCollection');
  if (collectionEl) {
    for (const s of childElements(collectionEl, 'sequencing', inFamily('imsss'), true)) {
      const id = attributeValue(s, 'ID') ?? attributeValue(s, 'id');
      if (id) collection.set(id.trim(), s);
    }
  }

  // ---- metadata ----
  const { metadata, lomLanguages } = await readManifestMetadata(source, root, path, warnings);
  for (const l of lomLanguages) languages.add(l);

  // ---- activity tree ----
  const usedIds = new Set<string>([orgId]);
  const launchables: LaunchableActivity[] = [];
  // Keyed by item identifiers: no prototype, so an item named `__proto__` or `constructor` is an item like any other.
  const activities = Object.create(null) as Record<string, Record<string, unknown>>;
  const usedResources = new Set<string>();

  const buildItem = (item: XmlElement, orgLabel: string): CourseActivity => {
    const id = attr(item, 'identifier');
    const title = elementText(cp(item, 'title'));
    if (!id) {
      throw new PackageError(`${where(path, item)}: an <item>${title ? ` ("${title}")` : ''} in organization "${orgLabel}" has no identifier attribute; every item needs one`);
    }
    if (usedIds.has(id)) throw new PackageError(`${where(path, item)}: the identifier "${id}" is used twice in organization "${orgLabel}"; item identifiers must be unique`);
    usedIds.add(id);
    const titleEl = cp(item, 'title');
    if (titleEl) languages.add(xmlLangOf(titleEl));
    if (!title) warnings.push(`${where(path, item)}: item "${id}" has no <title>; its identifier is shown instead`);

    const childItems = cps(item, 'item');
    const ref = attr(item, 'identifierref');
    const data = itemData(item, is12);
    activities[id] = data;
    const seqInfo = sequencingOf(item, collection, path, warnings);
    if (seqInfo.json) data.sequencing = seqInfo.json;
    if (seqInfo.idRef) data.sequencingIdRef = seqInfo.idRef;

    let scaledPassingScore: string | undefined;
    if (is12) {
      const ms = data.masteryScore as string | undefined;
      if (ms !== undefined) {
        const n = Number(ms);
        if (Number.isFinite(n) && n >= 0 && n <= 100) scaledPassingScore = decimalString(n / 100);
        else warnings.push(`${where(path, item)}: item "${id}" has adlcp:masteryscore "${ms}", which is not a number from 0 to 100; it is ignored`);
      }
    } else scaledPassingScore = seqInfo.scaledPassingScore;

    const activity: CourseActivity = {
      externalIdentifier: id,
      itemIdentifier: id,
      activityType: childItems.length ? 'AGGREGATION' : 'UNKNOWN',
      title: title ?? id,
      children: [],
    };
    if (scaledPassingScore !== undefined) activity.scaledPassingScore = scaledPassingScore;

    if (ref) {
      const res = resources.get(ref);
      if (!res) {
        throw new PackageError(
          `${where(path, item)}: item "${id}" references the resource "${ref}" (identifierref), but ${path} has no <resource identifier="${ref}">`,
        );
      }
      usedResources.add(ref);
      activity.resourceIdentifier = ref;
      const isSco = res.scormType === 'sco';
      if (!childItems.length) activity.activityType = isSco ? 'SCO' : 'ASSET';
      if (!res.scormType) warnings.push(`${where(path, res.el)}: resource "${ref}" has no adlcp:${is12 ? 'scormtype' : 'scormType'}; it is treated as an asset`);
      if (!res.href) {
        throw new PackageError(
          `${where(path, res.el)}: resource "${ref}" (launched by item "${id}") is ${isSco ? 'a SCO' : 'an asset'} but has no href attribute; the launch URL of ${isSco ? 'a SCO' : 'an item'} is its resource's href`,
        );
      }
      if (childItems.length && !is12) {
        warnings.push(`${where(path, item)}: item "${id}" has child items and also references resource "${ref}"; SCORM 2004 launches only leaf items, so the resource is ignored`);
      } else {
        activity.href = res.href;
        const check = checkLocalHref(source, res.href);
        if (check && !check.ok) {
          const msg = `${where(path, res.el)}: item "${id}" launches resource "${ref}" at "${res.href}", but ${check.reason}`;
          if (checkFiles) throw new PackageError(msg);
          warnings.push(msg);
        }
        const parameters = attributeValue(item, 'parameters')?.trim() || undefined;
        launchables.push({
          id,
          title: activity.title,
          href: res.href,
          ...(parameters ? { parameters } : {}),
          data: {
            ...data,
            scormType: isSco ? 'sco' : 'asset',
            resourceIdentifier: ref,
            dependencies: res.dependencies,
            ...(scaledPassingScore !== undefined ? { scaledPassingScore } : {}),
          },
        });
      }
    } else if (!childItems.length) {
      if (!is12) {
        throw new PackageError(`${where(path, item)}: item "${id}" has neither child items nor an identifierref; in SCORM 2004 every leaf item must reference a resource to launch`);
      }
      warnings.push(`${where(path, item)}: item "${id}" has no child items and references no resource; it cannot be launched`);
      activity.activityType = 'AGGREGATION';
    }
    activity.children = childItems.map((c) => buildItem(c, orgLabel));
    return activity;
  };

  const orgSeq = ext(orgEl, 'imsss', 'sequencing');
  const rootActivity: CourseActivity = {
    externalIdentifier: orgId,
    itemIdentifier: orgId,
    activityType: 'AGGREGATION',
    title: orgTitle ?? metadata.title ?? orgId,
    children: cps(orgEl, 'item').map((i) => buildItem(i, orgId)),
  };
  const orgTitleEl = cp(orgEl, 'title');
  if (orgTitleEl) languages.add(xmlLangOf(orgTitleEl));

  if (launchables.length === 0) {
    throw new PackageError(
      `${path}: organization "${orgId}" has no item that references a resource with an href, so there is nothing to launch; add <item identifierref="…"> elements pointing at <resource href="…">`,
    );
  }

  // ---- resource consistency warnings (files listed but absent, dangling dependencies) ----
  for (const res of resources.values()) {
    const missingFiles: string[] = [];
    for (const f of cps(res.el, 'file')) {
      const h = attributeValue(f, 'href')?.trim();
      if (!h) continue;
      const full = combineRef(res.bases, h);
      if (isAbsoluteUrl(full)) continue;
      const check = checkLocalHref(source, full);
      if (check && !check.ok) missingFiles.push(check.path ?? full);
    }
    if (missingFiles.length) {
      const shown = missingFiles.slice(0, 5).map((f) => `"${f}"`).join(', ');
      warnings.push(
        `${path}: resource "${res.id}" lists ${missingFiles.length} file${missingFiles.length > 1 ? 's' : ''} that ${missingFiles.length > 1 ? 'are' : 'is'} not in the package: ${shown}${missingFiles.length > 5 ? ', …' : ''}`,
      );
    }
    for (const dep of res.dependencies) {
      if (!resources.has(dep)) warnings.push(`${path}: resource "${res.id}" depends on resource "${dep}", which the manifest does not define`);
    }
  }

  const title = orgTitle ?? metadata.title ?? attr(root, 'identifier') ?? 'Untitled course';
  if (!metadata.title) metadata.title = title;

  const organization: Record<string, unknown> = { identifier: orgId, title: rootActivity.title };
  const structure = attr(orgEl, 'structure');
  if (structure) organization.structure = structure;
  if (orgSeq) organization.sequencing = xmlToJson(orgSeq);
  const ogts = extAttr(orgEl, 'adlseq', 'objectivesGlobalToSystem');
  if (ogts !== undefined) organization.objectivesGlobalToSystem = ogts.trim() !== 'false';
  const sdgts = extAttr(orgEl, 'adlcp', 'sharedDataGlobalToSystem');
  if (sdgts !== undefined) organization.sharedDataGlobalToSystem = sdgts.trim() !== 'false';
  const orgThreshold = ext(orgEl, 'adlcp', 'completionThreshold');
  if (orgThreshold) organization.completionThreshold = completionThresholdOf(orgThreshold);

  const packageData: Record<string, unknown> = {
    manifestIdentifier: attr(root, 'identifier'),
    manifestVersion: attr(root, 'version'),
    schemaVersion,
    organization,
    organizationIdentifiers: orgEls.map((o) => attr(o, 'identifier')),
    activities,
  };
  if (collection.size) {
    packageData.sequencingCollection = Object.fromEntries([...collection].map(([k, v]) => [k, xmlToJson(v)]));
  }

  return {
    standard,
    title,
    metadata,
    rootActivity,
    launchables,
    packageData,
    warnings,
    courseLanguages: languages.toArray(),
  };
}

function completionThresholdOf(el: XmlElement): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const text = elementText(el);
  if (text !== undefined) out.minProgressMeasure = text; // SCORM 2004 3rd edition: the threshold is the element's value
  for (const a of el.attributes) out[a.local] = a.value.trim();
  return out;
}

/** Per-item SCORM extension data (adlcp:, adlnav:, item attributes), kept for the player. */
function itemData(item: XmlElement, is12: boolean): Record<string, unknown> {
  const d: Record<string, unknown> = {};
  const visible = attributeValue(item, 'isvisible');
  d.isVisible = visible === undefined ? true : visible.trim().toLowerCase() !== 'false';
  const parameters = attributeValue(item, 'parameters')?.trim();
  if (parameters) d.parameters = parameters;
  const text = (local: string): string | undefined => elementText(ext(item, 'adlcp', local));

  const dataFromLms = text('dataFromLMS');
  if (dataFromLms !== undefined) d.dataFromLms = dataFromLms;
  const tla = text('timeLimitAction');
  if (tla !== undefined) d.timeLimitAction = tla;
  if (is12) {
    const ms = text('masteryscore');
    if (ms !== undefined) d.masteryScore = ms;
    const mta = text('maxtimeallowed');
    if (mta !== undefined) d.maxTimeAllowed = mta;
    const pre = ext(item, 'adlcp', 'prerequisites');
    const preText = elementText(pre);
    if (pre && preText !== undefined) d.prerequisites = { type: attributeValue(pre, 'type') ?? 'aicc_script', value: preText };
  } else {
    const ct = ext(item, 'adlcp', 'completionThreshold');
    if (ct) d.completionThreshold = completionThresholdOf(ct);
    const shared = ext(item, 'adlcp', 'data');
    if (shared) {
      d.sharedData = childElements(shared, 'map', inFamily('adlcp'), true).map((m) => ({
        targetID: attributeValue(m, 'targetID'),
        readSharedData: attributeValue(m, 'readSharedData')?.trim() !== 'false',
        writeSharedData: attributeValue(m, 'writeSharedData')?.trim() === 'true',
      }));
    }
    const pres = ext(item, 'adlnav', 'presentation');
    if (pres) {
      d.presentation = xmlToJson(pres);
      const nav = ext(pres, 'adlnav', 'navigationInterface');
      const hide = nav ? childElements(nav, 'hideLMSUI', inFamily('adlnav'), true).map((h) => elementText(h)).filter(Boolean) : [];
      if (hide.length) d.hideLMSUI = hide;
    }
  }
  return d;
}

interface SequencingInfo {
  json?: XmlJson;
  idRef?: string;
  scaledPassingScore?: string;
}

/** imsss:sequencing of an item, with the shared definition its IDRef names, and the passing score it implies. */
function sequencingOf(item: XmlElement, collection: Map<string, XmlElement>, path: string, warnings: string[]): SequencingInfo {
  const local = ext(item, 'imsss', 'sequencing');
  if (!local) return {};
  const info: SequencingInfo = { json: xmlToJson(local) };
  const idRef = (attributeValue(local, 'IDRef') ?? attributeValue(local, 'idref'))?.trim();
  let shared: XmlElement | undefined;
  if (idRef) {
    info.idRef = idRef;
    shared = collection.get(idRef);
    if (!shared) {
      warnings.push(`${where(path, local)}: item "${attributeValue(item, 'identifier')}" has <imsss:sequencing IDRef="${idRef}">, but imsss:sequencingCollection has no sequencing with ID "${idRef}"`);
    }
  }
  const objectives = ext(local, 'imsss', 'objectives') ?? ext(shared, 'imsss', 'objectives');
  const primary = ext(objectives, 'imsss', 'primaryObjective');
  if (primary && attributeValue(primary, 'satisfiedByMeasure')?.trim() === 'true') {
    const mnm = elementText(ext(primary, 'imsss', 'minNormalizedMeasure')) ?? '1.0';
    const n = Number(mnm);
    if (Number.isFinite(n)) info.scaledPassingScore = decimalString(n);
  }
  return info;
}

/** Manifest-level LOM: inline `<lom>` in `<metadata>`, or the file `adlcp:location` names. */
async function readManifestMetadata(
  source: PackageSource,
  root: XmlElement,
  path: string,
  warnings: string[],
): Promise<{ metadata: CourseMetadata; lomLanguages: string[] }> {
  const md = cp(root, 'metadata');
  if (!md) return { metadata: {}, lomLanguages: [] };
  let lom = childElement(md, 'lom', undefined, true);
  if (!lom) {
    const location = elementText(ext(md, 'adlcp', 'location'));
    if (location) {
      const check = checkLocalHref(source, location);
      if (check?.ok) {
        try {
          const doc = await readPackageXml(source, check.path);
          lom = doc.root.local.toLowerCase() === 'lom' ? doc.root : childElement(doc.root, 'lom', undefined, true);
          if (!lom) warnings.push(`${check.path} (the manifest's adlcp:location metadata) has no <lom> element; its metadata is ignored`);
        } catch (e) {
          warnings.push(`The manifest's metadata file could not be read and was ignored: ${e instanceof Error ? e.message : String(e)}`);
        }
      } else {
        warnings.push(`${path}: the metadata file named by adlcp:location ("${location}") is not in the package; its metadata is ignored`);
      }
    }
  }
  if (!lom) return { metadata: {}, lomLanguages: [] };
  const { metadata, languages } = readLom(lom);
  return { metadata, lomLanguages: languages };
}
