import { ZipFile } from 'yazl';
import { PACKAGE_SCRIPT } from './dispatch-package-script';
import type { DispatchEntity } from './entities/dispatch.entity';

export type PackageType = 'SCORM_12' | 'SCORM_2004_3RD' | 'AICC' | 'XAPI' | 'CMI5';
/** The package types LCDS builds today. */
export const BUILT_PACKAGE_TYPES: readonly PackageType[] = ['SCORM_12', 'SCORM_2004_3RD'];

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** JSON inside a <script>: no `</script>` or `<!--` can close it. */
const scriptJson = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');

function manifest(type: PackageType, id: string, title: string): string {
  const ident = `lcds-dispatch-${id.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
  const org = `<organizations default="org"><organization identifier="org"><title>${xml(title)}</title><item identifier="item" identifierref="res"><title>${xml(title)}</title></item></organization></organizations>`;
  if (type === 'SCORM_12') {
    return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="${xml(ident)}" version="1" xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">
<metadata><schema>ADL SCORM</schema><schemaversion>1.2</schemaversion></metadata>
${org}
<resources><resource identifier="res" type="webcontent" adlcp:scormtype="sco" href="index.html"><file href="index.html"/></resource></resources>
</manifest>
`;
  }
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="${xml(ident)}" version="1" xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3">
<metadata><schema>ADL SCORM</schema><schemaversion>2004 3rd Edition</schemaversion></metadata>
${org}
<resources><resource identifier="res" type="webcontent" adlcp:scormType="sco" href="index.html"><file href="index.html"/></resource></resources>
</manifest>
`;
}

function launchPage(config: Record<string, unknown>, title: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${xml(title)}</title>
<style>html,body{margin:0;height:100%;overflow:hidden}#lcds-frame{border:0;width:100%;height:100%;display:block}#lcds-message{display:none;font:16px/1.5 system-ui,sans-serif;margin:2em;max-width:40em}</style>
</head><body><p id="lcds-message" role="alert"></p>
<script>var C = ${scriptJson(config)};
${PACKAGE_SCRIPT}</script>
</body></html>
`;
}

/**
 * The files of a dispatch package: a manifest of one SCO and its launch page, no course asset. The page carries the
 * dispatch's public key and its own secret in clear (never an application key), and LCDS's address.
 */
export function packageFiles(d: Pick<DispatchEntity, 'id' | 'packageKey' | 'secret'>, type: PackageType, title: string, publicUrl: string, cssUrl?: string): Record<string, string> {
  const config = { lcds: publicUrl, origin: new URL(publicUrl).origin, key: d.packageKey, secret: d.secret, version: type === 'SCORM_12' ? '1.2' : '2004', title, ...(cssUrl ? { cssUrl } : {}) };
  return { 'imsmanifest.xml': manifest(type, d.id, title), 'index.html': launchPage(config, title) };
}

export async function zipBuffer(files: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new ZipFile();
  for (const [name, content] of Object.entries(files)) zip.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8'), name, { mtime: new Date(0) });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
