import { createHmac } from 'node:crypto';
import { ZipFile } from 'yazl';
import { PACKAGE_SCRIPT } from './dispatch-package-script';
import type { DispatchEntity } from './entities/dispatch.entity';

export type PackageType = 'SCORM_12' | 'SCORM_2004_3RD' | 'AICC' | 'XAPI' | 'CMI5';
/** The packages whose page is on LCDS: a link signed with the dispatch's secret. */
export type LinkedPackageKind = 'cmi5' | 'xapi' | 'aicc';

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
  if (type === 'CMI5') return { 'cmi5.xml': cmi5Xml(d, title, publicUrl, cssUrl) };
  if (type === 'XAPI') return xapiFiles(d, title, publicUrl, cssUrl);
  if (type === 'AICC') return aiccFiles(d, title, publicUrl, cssUrl);
  const config = { lcds: publicUrl, origin: new URL(publicUrl).origin, key: d.packageKey, secret: d.secret, version: type === 'SCORM_12' ? '1.2' : '2004', title, ...(cssUrl ? { cssUrl } : {}) };
  return { 'imsmanifest.xml': manifest(type, d.id, title), 'index.html': launchPage(config, title) };
}

/** The link's proof that it comes from the dispatch's package (the key alone is public: LTI links carry it too). */
export function packageSignature(d: Pick<DispatchEntity, 'packageKey'>, secret: string, kind: LinkedPackageKind): string {
  return createHmac('sha256', secret).update(`lcds-dispatch-${kind}:${d.packageKey}`).digest('base64url');
}

/** The AU's (cmi5) or the launch page's (xAPI) address on LCDS, as the package names it. */
export function xapiLaunchUrl(publicUrl: string, d: Pick<DispatchEntity, 'packageKey'>, secret: string, kind: LinkedPackageKind, cssUrl?: string): string {
  return `${publicUrl}/dispatch/${kind}/${d.packageKey}/${packageSignature(d, secret, kind)}${cssUrl ? `?${new URLSearchParams({ cssUrl }).toString()}` : ''}`;
}

/** The activity id of an xAPI package's activity (tincan.xml), and of a cmi5 package's course and AU. */
export function dispatchActivityId(publicUrl: string, d: Pick<DispatchEntity, 'packageKey'>, part: 'activity' | 'course' | 'au'): string {
  return `${publicUrl}/dispatch/activity/${d.packageKey}/${part}`;
}

/**
 * cmi5: a course structure of one AU whose (absolute) url is LCDS's relay page for the dispatch, signed with the
 * dispatch's secret; the LMS appends its launch parameters. No file but cmi5.xml.
 */
function cmi5Xml(d: Pick<DispatchEntity, 'packageKey' | 'secret'>, title: string, publicUrl: string, cssUrl?: string): string {
  const text = `<langstring lang="en-US">${xml(title)}</langstring>`;
  return `<?xml version="1.0" encoding="utf-8"?>
<courseStructure xmlns="https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd">
<course id="${xml(dispatchActivityId(publicUrl, d, 'course'))}"><title>${text}</title><description>${text}</description></course>
<au id="${xml(dispatchActivityId(publicUrl, d, 'au'))}" moveOn="CompletedOrPassed" launchMethod="AnyWindow">
<title>${text}</title><description>${text}</description>
<url>${xml(xapiLaunchUrl(publicUrl, d, d.secret, 'cmi5', cssUrl))}</url>
</au>
</courseStructure>
`;
}

/**
 * xAPI (Tin Can): tincan.xml of one activity launched by index.html, which sends the browser on to LCDS's relay
 * page with the launch parameters the LMS gave it (endpoint, auth, actor, registration, activity_id).
 */
function xapiFiles(d: Pick<DispatchEntity, 'packageKey' | 'secret'>, title: string, publicUrl: string, cssUrl?: string): Record<string, string> {
  const activityId = dispatchActivityId(publicUrl, d, 'activity');
  const manifestXml = `<?xml version="1.0" encoding="utf-8"?>
<tincan xmlns="http://projecttincan.com/tincan.xsd">
<activities>
<activity id="${xml(activityId)}" type="http://adlnet.gov/expapi/activities/course">
<name lang="en-US">${xml(title)}</name>
<description lang="en-US">${xml(title)}</description>
<launch lang="en-US">index.html</launch>
</activity>
</activities>
</tincan>
`;
  const url = xapiLaunchUrl(publicUrl, d, d.secret, 'xapi', cssUrl);
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${xml(title)}</title></head><body>
<script>var u = ${scriptJson(url)}, q = location.search.slice(1);
location.replace(u + (q ? (u.indexOf('?') < 0 ? '?' : '&') + q : ''));</script>
</body></html>
`;
  return { 'tincan.xml': manifestXml, 'index.html': page };
}

const csv = (...cells: string[]) => cells.map((c) => `"${c.replace(/"/g, "'").replace(/[\r\n]+/g, ' ')}"`).join(',');

/**
 * AICC: the four course structure files of a course of one AU, a web launch whose File_Name is LCDS's page for the
 * dispatch (signed with the dispatch's secret); the LMS adds aicc_sid and aicc_url and LCDS talks HACP with it.
 */
function aiccFiles(d: Pick<DispatchEntity, 'id' | 'packageKey' | 'secret'>, title: string, publicUrl: string, cssUrl?: string): Record<string, string> {
  const id = d.id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 100) || 'dispatch';
  const line = (...rows: string[]) => rows.join('\r\n') + '\r\n';
  const oneLine = title.replace(/[\r\n]+/g, ' ');
  return {
    'course.crs': line('[Course]', 'Course_Creator=LCDS', `Course_ID=${id}`, 'Course_System=LCDS', `Course_Title=${oneLine}`, 'Level=1', 'Max_Fields_CST=2', 'Total_AUs=1', 'Total_Blocks=0', 'Total_Objectives=0', 'Total_Complex_Obj=0', 'Version=4.0', '[Course_Behavior]', 'Max_Normal=1', '[Course_Description]', oneLine),
    'course.au': line(
      csv('System_ID', 'Type', 'Command_Line', 'Max_Time_Allowed', 'Time_Limit_Action', 'File_Name', 'Max_Score', 'Mastery_Score', 'System_Vendor', 'Core_Vendor', 'Web_Launch', 'AU_Password'),
      csv('A1', 'lcds-dispatch', '', '', '', xapiLaunchUrl(publicUrl, d, d.secret, 'aicc', cssUrl), '', '', 'LCDS', '', '', ''),
    ),
    'course.des': line(csv('System_ID', 'Developer_ID', 'Title', 'Description'), csv('A1', id, oneLine, oneLine)),
    'course.cst': line(csv('Block', 'Member'), csv('root', 'A1')),
  };
}

export async function zipBuffer(files: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new ZipFile();
  for (const [name, content] of Object.entries(files)) zip.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8'), name, { mtime: new Date(0) });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
