/**
 * XML access for package parsers: reading a package file through the safe XML reader, the namespace families of the
 * e-learning standards, and a canonical JSON form of XML fragments kept for the player.
 *
 * Namespace approach: elements and attributes are matched by namespace URI (resolved by the safe XML reader), grouped
 * into families — the same family covers every URI variant authors use for it (e.g. `adlcp_rootv1p2` for SCORM 1.2 and
 * `adlcp_v1p3` for 2004, with or without a trailing slash, http or https, any case). A node whose prefix is undeclared
 * (a sloppy but common authoring error) falls back to its prefix when that is the family's conventional prefix.
 * JSON kept for the player (`xmlToJson`) renames every node to the family's canonical prefix (`imsss:sequencing`,
 * `adlseq:objectivesGlobalToSystem`) whatever prefix the package used, so the player never sees author prefixes.
 */
import { XmlDocumentError, XmlElement, XML_NAMESPACE, attributeValue, parseXmlSafely, type XmlDocument } from '../../../platform/xml/safe-xml';
import { PackageError, type PackageSource } from './package-types';

export type NsFamily = 'imscp' | 'adlcp' | 'imsss' | 'adlseq' | 'adlnav' | 'lom' | 'xml' | 'xsi';

const FAMILY_URIS: Record<NsFamily, string[]> = {
  imscp: [
    'http://www.imsproject.org/xsd/imscp_rootv1p1p2',
    'http://www.imsglobal.org/xsd/imscp_rootv1p1p2',
    'http://www.imsglobal.org/xsd/imscp_v1p1',
    'http://www.imsglobal.org/xsd/imscp_v1p2',
  ],
  adlcp: ['http://www.adlnet.org/xsd/adlcp_rootv1p2', 'http://www.adlnet.org/xsd/adlcp_v1p3', 'http://www.adlnet.org/xsd/adlcp_rootv1p3'],
  imsss: ['http://www.imsglobal.org/xsd/imsss', 'http://www.imsglobal.org/xsd/imsss_v1p0'],
  adlseq: ['http://www.adlnet.org/xsd/adlseq_v1p3', 'http://www.adlnet.org/xsd/adlseq_rootv1p3'],
  adlnav: ['http://www.adlnet.org/xsd/adlnav_v1p3', 'http://www.adlnet.org/xsd/adlnav_rootv1p3'],
  lom: [
    'http://ltsc.ieee.org/xsd/LOM',
    'http://www.imsglobal.org/xsd/imsmd_rootv1p2p1',
    'http://www.imsproject.org/xsd/imsmd_rootv1p2p1',
    'http://www.imsglobal.org/xsd/imsmd_v1p2',
  ],
  xml: [XML_NAMESPACE],
  xsi: ['http://www.w3.org/2001/XMLSchema-instance'],
};

function normalizeUri(uri: string): string {
  return uri.trim().toLowerCase().replace(/^https?:\/\//, '').replace(/\/+$/, '');
}

const URI_TO_FAMILY = new Map<string, NsFamily>();
for (const [family, uris] of Object.entries(FAMILY_URIS) as [NsFamily, string[]][]) {
  for (const u of uris) URI_TO_FAMILY.set(normalizeUri(u), family);
}

/** The family of a node (element or attribute): by namespace URI, else by conventional prefix when undeclared. */
export function familyOf(node: { ns: string; prefix: string }): NsFamily | undefined {
  if (node.ns) {
    const f = URI_TO_FAMILY.get(normalizeUri(node.ns));
    if (f) return f;
    // Unknown versions of known families, e.g. ".../adlcp_v1p4".
    const n = normalizeUri(node.ns);
    if (n.startsWith('www.adlnet.org/xsd/adlcp')) return 'adlcp';
    if (n.startsWith('www.adlnet.org/xsd/adlseq')) return 'adlseq';
    if (n.startsWith('www.adlnet.org/xsd/adlnav')) return 'adlnav';
    if (n.startsWith('www.imsglobal.org/xsd/imsss')) return 'imsss';
    if (/imscp/.test(n)) return 'imscp';
    if (/imsmd|ieee.org\/xsd\/lom/.test(n)) return 'lom';
    return undefined;
  }
  const p = node.prefix.toLowerCase();
  if (p && (p in FAMILY_URIS)) return p as NsFamily;
  return undefined;
}

export function inFamily(family: NsFamily): (node: { ns: string; prefix: string }) => boolean {
  return (node) => familyOf(node) === family;
}

const EXTENSION_FAMILIES: ReadonlySet<NsFamily | undefined> = new Set<NsFamily | undefined>(['adlcp', 'imsss', 'adlseq', 'adlnav', 'lom']);

/**
 * IMS Content Packaging elements: whatever namespace the package declared for CP (packages get it wrong: 1.2 URIs in
 * 2004 packages, no namespace at all), as long as it is not one of the SCORM extension families.
 */
export function isCpNode(node: { ns: string; prefix: string }): boolean {
  return !EXTENSION_FAMILIES.has(familyOf(node));
}

/** Canonical JSON of an XML fragment, as kept with the course version for the player. */
export interface XmlJson {
  name: string;
  attributes: Record<string, string>;
  children: XmlJson[];
  text?: string;
}

function canonicalName(node: { ns: string; prefix: string; local: string; name: string }, isAttribute: boolean): string {
  const f = familyOf(node);
  if (f === 'imscp' || (!f && !node.ns && !node.prefix)) return node.local;
  if (f) return `${f}:${node.local}`;
  if (isAttribute && !node.prefix) return node.local;
  return node.name;
}

export function xmlToJson(el: XmlElement): XmlJson {
  const attributes: Record<string, string> = {};
  for (const a of el.attributes) attributes[canonicalName(a, true)] = a.value;
  const out: XmlJson = { name: canonicalName(el, false), attributes, children: el.children.map(xmlToJson) };
  const t = el.text.trim();
  if (t !== '') out.text = t;
  return out;
}

export function xmlBaseOf(el: XmlElement | undefined): string | undefined {
  if (!el) return undefined;
  const v = attributeValue(el, 'base', (a) => a.ns === XML_NAMESPACE || a.prefix === 'xml');
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

export function xmlLangOf(el: XmlElement): string | undefined {
  const v = attributeValue(el, 'lang', (a) => a.ns === XML_NAMESPACE || a.prefix === 'xml');
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

/** Reads and parses a package XML file; every XML problem becomes a PackageError naming the file. */
export async function readPackageXml(source: PackageSource, path: string): Promise<XmlDocument> {
  let text: string;
  try {
    text = await source.readText(path);
  } catch (e) {
    throw new PackageError(`${path} could not be read from the package: ${e instanceof Error ? e.message : String(e)}`);
  }
  return parsePackageXml(text, path);
}

export function parsePackageXml(text: string, path: string): XmlDocument {
  try {
    return parseXmlSafely(text, path);
  } catch (e) {
    if (e instanceof XmlDocumentError) throw new PackageError(e.message);
    throw e;
  }
}
