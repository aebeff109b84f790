/**
 * Safe XML reading for untrusted documents (course manifests uploaded by anyone with an API key).
 *
 * Every XML file a package parser reads goes through {@link parseXmlSafely}. It:
 *  - refuses documents larger than `maxBytes` (default 20 MB) before any parsing;
 *  - refuses a DOCTYPE that has an external id (SYSTEM/PUBLIC) or declares entities (`<!ENTITY`), so neither external
 *    entities (XXE) nor entity expansion ("billion laughs") can happen. A harmless DOCTYPE (name only, or an internal
 *    subset without entity declarations) is blanked out before parsing, so the XML library never processes DTDs;
 *  - decodes only the five predefined XML entities and numeric character references itself (the library's entity
 *    processing is switched off); any other entity reference is a well-formedness error;
 *  - reports malformed XML with the file name and, when known, line and column.
 *
 * Namespaces: the library (fast-xml-parser) keeps qualified names as written. This module resolves every element and
 * attribute prefix against the in-scope `xmlns` declarations and exposes `ns` (the namespace URI) and `local` on each
 * node, so callers match on namespace URI + local name and never on the prefix an author happened to choose
 * (`adlcp:`, `cp:`, default namespace…). An undeclared prefix resolves to `ns === ''` with `prefix` kept, so callers may
 * fall back to well-known prefixes for sloppy documents.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';

export const XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace';
export const XMLNS_NAMESPACE = 'http://www.w3.org/2000/xmlns/';
export const DEFAULT_MAX_XML_BYTES = 20 * 1024 * 1024;

export type XmlErrorKind = 'too-large' | 'unsafe' | 'malformed';

/** A document that cannot be read safely; `message` already names the file and is fit to show to a course author. */
export class XmlDocumentError extends Error {
  constructor(
    message: string,
    readonly kind: XmlErrorKind,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(message);
    this.name = 'XmlDocumentError';
  }
}

export interface XmlAttribute {
  /** Qualified name as written (`adlcp:scormtype`). */
  name: string;
  prefix: string;
  local: string;
  /** Namespace URI; '' for unprefixed attributes (XML namespaces: no default namespace for attributes) and undeclared prefixes. */
  ns: string;
  value: string;
}

export interface XmlElement {
  name: string;
  prefix: string;
  local: string;
  /** Namespace URI, '' when none (or the prefix is undeclared). */
  ns: string;
  attributes: XmlAttribute[];
  children: XmlElement[];
  /** Character data directly inside this element (text and CDATA, in order, not trimmed). */
  text: string;
  /** 1-based line of the start tag. */
  line: number;
}

export interface XmlDocument {
  fileName: string;
  root: XmlElement;
  /** Every namespace URI declared anywhere in the document. */
  declaredNamespaces: Set<string>;
}

export interface ParseXmlOptions {
  maxBytes?: number;
}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: false,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  cdataPropName: '#cdata',
  captureMetaData: true,
  maxNestedTags: 200,
});
const META = XMLParser.getMetaDataSymbol() as unknown as symbol;

/** Parses `text` (already decoded, BOM stripped) or throws {@link XmlDocumentError}. */
export function parseXmlSafely(text: string, fileName: string, options: ParseXmlOptions = {}): XmlDocument {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_XML_BYTES;
  const size = Buffer.byteLength(text, 'utf8');
  if (size > maxBytes) {
    throw new XmlDocumentError(
      `${fileName} is too large to read (${formatBytes(size)}; the limit is ${formatBytes(maxBytes)})`,
      'too-large',
    );
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const checked = neutralizeDoctype(text, fileName);
  const lines = new LineIndex(checked);

  const valid = XMLValidator.validate(checked, { allowBooleanAttributes: false });
  if (valid !== true) {
    const { msg, line, col } = valid.err;
    throw malformed(fileName, msg, line, col);
  }

  let raw: unknown[];
  try {
    raw = parser.parse(checked) as unknown[];
  } catch (e) {
    throw malformed(fileName, e instanceof Error ? e.message : String(e));
  }

  const declaredNamespaces = new Set<string>();
  const roots: XmlElement[] = [];
  for (const node of raw) {
    const rec = node as Record<string, unknown>;
    if ('#text' in rec) {
      if (String(rec['#text']).trim() !== '') throw malformed(fileName, 'text content outside the root element');
      continue;
    }
    if ('#cdata' in rec) throw malformed(fileName, 'CDATA outside the root element');
    roots.push(convert(rec, new Map([['xml', XML_NAMESPACE]]), fileName, lines, declaredNamespaces));
  }
  if (roots.length === 0) throw malformed(fileName, 'the document has no root element');
  if (roots.length > 1) {
    throw malformed(fileName, `the document has ${roots.length} root elements (<${roots[0].name}>, <${roots[1].name}>…); XML allows exactly one`, roots[1].line);
  }
  return { fileName, root: roots[0], declaredNamespaces };
}

function malformed(fileName: string, detail: string, line?: number, column?: number): XmlDocumentError {
  const where = line ? ` (line ${line}${column ? `, column ${column}` : ''})` : '';
  return new XmlDocumentError(`${fileName} is not well-formed XML${where}: ${detail}`, 'malformed', line, column);
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MB` : `${Math.ceil(n / 1024)} KB`;
}

/**
 * Finds a DOCTYPE in the prolog. Refuses external ids and entity declarations; blanks out anything else (keeping line
 * breaks so positions stay right) so the XML library never sees a DTD.
 */
function neutralizeDoctype(text: string, fileName: string): string {
  let i = 0;
  const n = text.length;
  for (;;) {
    while (i < n && /\s/.test(text[i])) i++;
    if (text.startsWith('<?', i)) {
      const end = text.indexOf('?>', i + 2);
      if (end < 0) return text; // the validator reports it
      i = end + 2;
    } else if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end < 0) return text;
      i = end + 3;
    } else break;
  }
  if (text.slice(i, i + 9).toUpperCase() !== '<!DOCTYPE') {
    // A DOCTYPE anywhere else is not well-formed; still never let an entity declaration reach the library.
    if (/<!ENTITY/i.test(text) && /<!DOCTYPE/i.test(text)) throw entitiesRefused(fileName);
    return text;
  }
  const start = i;
  let depth = 0;
  let quote = '';
  let j = i + 9;
  for (; j < n; j++) {
    const c = text[j];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']') depth--;
    else if (c === '>' && depth <= 0) break;
  }
  const decl = text.slice(start, j + 1);
  const bracket = decl.indexOf('[');
  const head = bracket >= 0 ? decl.slice(0, bracket) : decl;
  if (/\b(SYSTEM|PUBLIC)\b/i.test(head) || /<!ENTITY/i.test(decl)) throw entitiesRefused(fileName);
  if (/<!ENTITY/i.test(text.slice(j + 1))) throw entitiesRefused(fileName);
  return text.slice(0, start) + decl.replace(/[^\n]/g, ' ') + text.slice(j + 1);
}

function entitiesRefused(fileName: string): XmlDocumentError {
  return new XmlDocumentError(
    `${fileName} was refused: its DOCTYPE references an external DTD or declares entities. XML must not declare entities (DTD entity declarations are refused for safety); remove the <!DOCTYPE …> declaration`,
    'unsafe',
  );
}

class LineIndex {
  private readonly starts: number[] = [0];
  constructor(text: string) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }
  lineOf(index: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
}

const ENTITY_RE = /&(?:(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z_:][\w.:-]*);)?/g;
const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(value: string, fileName: string, line: number): string {
  if (value.indexOf('&') < 0) return value;
  return value.replace(ENTITY_RE, (_m, ref: string | undefined) => {
    if (ref === undefined) throw malformed(fileName, "an unescaped '&' (write &amp; for a literal ampersand)", line);
    if (ref[0] === '#') {
      const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      const ok =
        code === 0x9 || code === 0xa || code === 0xd || (code >= 0x20 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff);
      if (!ok) throw malformed(fileName, `&${ref}; is not a legal XML character`, line);
      return String.fromCodePoint(code);
    }
    const v = PREDEFINED[ref];
    if (v === undefined) {
      throw malformed(fileName, `the entity &${ref}; is not defined (only &lt; &gt; &amp; &quot; &apos; and numeric character references are allowed)`, line);
    }
    return v;
  });
}

function splitName(qname: string): [string, string] {
  const c = qname.indexOf(':');
  return c < 0 ? ['', qname] : [qname.slice(0, c), qname.slice(c + 1)];
}

function convert(
  node: Record<string, unknown>,
  parentScope: Map<string, string>,
  fileName: string,
  lines: LineIndex,
  declared: Set<string>,
): XmlElement {
  const name = Object.keys(node).find((k) => k !== ':@' && k !== '#text' && k !== '#cdata');
  if (!name) throw malformed(fileName, 'unexpected parser output');
  const meta = (node as Record<symbol, { startIndex?: number } | undefined>)[META];
  const line = meta?.startIndex !== undefined ? lines.lineOf(meta.startIndex) : 0;
  const rawAttrs = (node[':@'] ?? {}) as Record<string, string>;

  let scope = parentScope;
  for (const [k, v] of Object.entries(rawAttrs)) {
    if (k === 'xmlns' || k.startsWith('xmlns:')) {
      if (scope === parentScope) scope = new Map(parentScope);
      const uri = decodeEntities(String(v), fileName, line).trim();
      scope.set(k === 'xmlns' ? '' : k.slice(6), uri);
      if (uri) declared.add(uri);
    }
  }

  const [prefix, local] = splitName(name);
  const attributes: XmlAttribute[] = [];
  for (const [k, v] of Object.entries(rawAttrs)) {
    if (k === 'xmlns' || k.startsWith('xmlns:')) continue;
    const [p, l] = splitName(k);
    // Attribute-value normalization (XML 1.0 §3.3.3): literal tabs and line breaks become spaces.
    const value = decodeEntities(String(v).replace(/[\t\n\r]/g, ' '), fileName, line);
    attributes.push({ name: k, prefix: p, local: l, ns: p ? (scope.get(p) ?? '') : '', value });
  }

  const el: XmlElement = {
    name,
    prefix,
    local,
    ns: scope.get(prefix) ?? '',
    attributes,
    children: [],
    text: '',
    line,
  };
  const content = node[name] as unknown[];
  let text = '';
  for (const child of content ?? []) {
    const rec = child as Record<string, unknown>;
    if ('#text' in rec) text += decodeEntities(String(rec['#text']), fileName, line);
    else if ('#cdata' in rec) {
      for (const part of (rec['#cdata'] as Record<string, string | undefined>[]) ?? []) text += part['#text'] ?? '';
    } else el.children.push(convert(rec, scope, fileName, lines, declared));
  }
  el.text = text;
  return el;
}

// ---------------------------------------------------------------------------------------------------------------
// Small helpers for walking the tree
// ---------------------------------------------------------------------------------------------------------------

export type NsMatcher = string | ((el: { ns: string; prefix: string }) => boolean) | undefined;

function nsMatches(node: { ns: string; prefix: string }, ns: NsMatcher): boolean {
  if (ns === undefined) return true;
  return typeof ns === 'string' ? node.ns === ns : ns(node);
}

/** Child elements, optionally filtered by local name (case-insensitive when `ignoreCase`) and namespace. */
export function childElements(el: XmlElement, local?: string, ns?: NsMatcher, ignoreCase = false): XmlElement[] {
  if (local === undefined) return el.children.filter((c) => nsMatches(c, ns));
  const want = ignoreCase ? local.toLowerCase() : local;
  return el.children.filter((c) => (ignoreCase ? c.local.toLowerCase() : c.local) === want && nsMatches(c, ns));
}

export function childElement(el: XmlElement, local: string, ns?: NsMatcher, ignoreCase = false): XmlElement | undefined {
  return childElements(el, local, ns, ignoreCase)[0];
}

/** Attribute value by local name (and namespace: '' = unprefixed, the default when ns is omitted). */
export function attributeValue(el: XmlElement, local: string, ns: NsMatcher = '', ignoreCase = false): string | undefined {
  const want = ignoreCase ? local.toLowerCase() : local;
  const a = el.attributes.find((x) => (ignoreCase ? x.local.toLowerCase() : x.local) === want && nsMatches(x, ns));
  return a?.value;
}

/** Trimmed direct text, or undefined when empty. */
export function elementText(el: XmlElement | undefined): string | undefined {
  if (!el) return undefined;
  const t = el.text.trim();
  return t === '' ? undefined : t;
}

/** All text inside the element and its descendants. */
export function deepText(el: XmlElement): string {
  return el.text + el.children.map(deepText).join('');
}

/** Depth-first walk (element itself first). */
export function* walkElements(el: XmlElement): Generator<XmlElement> {
  yield el;
  for (const c of el.children) yield* walkElements(c);
}
