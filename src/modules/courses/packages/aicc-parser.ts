/**
 * AICC courses (CMI001 course structure files): `.crs` (course, INI-like), `.au` (assignable units), `.des`
 * (descriptor titles), `.cst` (course structure: block → members), and optionally `.ort` (objectives relationships)
 * and `.pre` (prerequisites), kept as data. File names, extensions, section, key and column names are
 * case-insensitive. The tree: course → blocks (AGGREGATION) → AUs (SCO, href = File_Name, parameters = Web_Launch).
 */
import { basename, checkLocalHref, extensionOf, isJunkFile } from './package-paths';
import { PackageError, type CourseActivity, type LaunchableActivity, type PackageSource, type ParsedPackage } from './package-types';
import type { ParseOptions } from './parse-options';
import { emptyRecord } from '../../../platform/records';


export const AICC_REQUIRED_EXTENSIONS = ['crs', 'au', 'des', 'cst'] as const;
const AICC_EXTENSIONS = ['crs', 'au', 'des', 'cst', 'ort', 'pre', 'cmp'] as const;
type AiccExt = (typeof AICC_EXTENSIONS)[number];

/** AICC descriptor files at the package root, by extension. */
export function findAiccFiles(source: PackageSource): Partial<Record<AiccExt, string>> {
  const byExt: Partial<Record<AiccExt, string[]>> = {};
  for (const f of source.files()) {
    if (f.includes('/') || isJunkFile(f)) continue;
    const e = extensionOf(f) as AiccExt;
    if ((AICC_EXTENSIONS as readonly string[]).includes(e)) (byExt[e] ??= []).push(f);
  }
  const crsList = byExt.crs ?? [];
  const stem = crsList.length ? basename(crsList[0]).replace(/\.[^.]*$/, '').toLowerCase() : undefined;
  const out: Partial<Record<AiccExt, string>> = {};
  for (const e of AICC_EXTENSIONS) {
    const list = byExt[e];
    if (!list?.length) continue;
    out[e] = list.find((f) => f.replace(/\.[^.]*$/, '').toLowerCase() === stem) ?? list[0];
  }
  return out;
}

export function looksLikeAicc(source: PackageSource): boolean {
  const f = findAiccFiles(source);
  return !!f.crs || (!!f.au && !!f.des);
}

// ------------------------------------------------------------------------------------------------------------------
// File formats
// ------------------------------------------------------------------------------------------------------------------

/** RFC 4180-style CSV as AICC writes it: quoted fields with commas and doubled quotes inside, CRLF or LF. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let inQuotes = false;
  let quoted = false;
  const endField = (): void => {
    row.push(quoted ? field : field.trim());
    field = '';
    quoted = false;
  };
  const endRow = (): void => {
    endField();
    if (row.length > 1 || row[0] !== '') rows.push(row);
    row = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inQuotes) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else inQuotes = false;
      } else field += c;
    } else if (c === '"') {
      if (field.trim() === '') {
        field = '';
        inQuotes = true;
        quoted = true;
      } else field += c;
    } else if (c === ',') endField();
    else if (c === '\n') endRow();
    else if (c === '\r') {
      if (text[i + 1] !== '\n') endRow();
    } else if (!(quoted && /\s/.test(c))) field += c;
  }
  if (field !== '' || row.length) endRow();
  return rows;
}

export interface CsvTable {
  /** Header names, lower-cased and trimmed. */
  headers: string[];
  rows: Record<string, string>[];
  /** Raw rows (without the header), for repeated columns like `.cst` members. */
  raw: string[][];
}

function parseTable(text: string): CsvTable {
  const [head = [], ...rest] = parseCsv(text);
  const headers = head.map((h) => h.trim().toLowerCase());
  return {
    headers,
    raw: rest,
    rows: rest.map((r) => {
      const rec = emptyRecord<string>();
      headers.forEach((h, i) => {
        if (h && !(h in rec)) rec[h] = (r[i] ?? '').trim();
      });
      return rec;
    }),
  };
}

export interface IniFile {
  /** section (lower-case) → key (lower-case) → value */
  sections: Record<string, Record<string, string>>;
  /** section (lower-case) → the section's raw lines (for free-text sections like [Course_Description]) */
  text: Record<string, string>;
}

export function parseIni(text: string): IniFile {
  const sections = emptyRecord<Record<string, string>>();
  const lines = emptyRecord<string[]>();
  let current = '';
  for (const rawLine of text.split(/\r\n|\r|\n/)) {
    const line = rawLine.trim();
    const m = /^\[([^\]]+)\]/.exec(line);
    if (m) {
      current = m[1].trim().toLowerCase();
      sections[current] ??= emptyRecord();
      lines[current] ??= [];
      continue;
    }
    (lines[current] ??= []).push(rawLine);
    if (line === '' || line.startsWith(';')) continue;
    const eq = line.indexOf('=');
    if (eq > 0) {
      const key = line.slice(0, eq).trim().toLowerCase();
      const value = line.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
      (sections[current] ??= emptyRecord())[key] = value;
    }
  }
  const textOut = emptyRecord<string>();
  for (const [k, v] of Object.entries(lines)) textOut[k] = v.join('\n').trim();
  return { sections, text: textOut };
}

// ------------------------------------------------------------------------------------------------------------------

function decimalString(n: number): string {
  return String(Number(n.toFixed(7)));
}

export async function parseAicc(source: PackageSource, options: ParseOptions = {}): Promise<ParsedPackage> {
  const files = findAiccFiles(source);
  const missing = AICC_REQUIRED_EXTENSIONS.filter((e) => !files[e]);
  if (missing.length) {
    throw new PackageError(
      `This AICC package is incomplete: it has no ${missing.map((e) => `.${e}`).join(', ')} file${missing.length > 1 ? 's' : ''} at the top level of the zip. ` +
        'An AICC course needs a .crs (course), .au (assignable units), .des (descriptors) and .cst (course structure) file',
    );
  }
  const checkFiles = options.checkFiles !== false;
  const warnings: string[] = [];
  const read = async (e: AiccExt): Promise<string | undefined> => {
    const f = files[e];
    return f ? source.readText(f) : undefined;
  };
  const crsPath = files.crs as string;
  const auPath = files.au as string;
  const desPath = files.des as string;
  const cstPath = files.cst as string;

  const crs = parseIni((await read('crs')) ?? '');
  const course = crs.sections['course'] ?? {};
  const au = parseTable((await read('au')) ?? '');
  const des = parseTable((await read('des')) ?? '');
  const cst = parseTable((await read('cst')) ?? '');
  const ort = files.ort ? parseTable((await read('ort')) ?? '') : undefined;
  const pre = files.pre ? parseTable((await read('pre')) ?? '') : undefined;

  if (!au.headers.includes('system_id')) {
    throw new PackageError(`${auPath}: the header row has no "System_ID" column; the .au file must list each assignable unit with its System_ID and File_Name`);
  }
  if (au.rows.length === 0) throw new PackageError(`${auPath} lists no assignable units; an AICC course needs at least one AU`);
  if (!des.headers.includes('system_id')) {
    throw new PackageError(`${desPath}: the header row has no "System_ID" column; the .des file must give a Title for each AU and block by System_ID`);
  }

  const descriptors = new Map<string, Record<string, string>>();
  for (const r of des.rows) if (r.system_id) descriptors.set(r.system_id.toLowerCase(), r);

  // ---- AUs ----
  interface AuInfo {
    id: string;
    row: Record<string, string>;
    activity: CourseActivity;
    launchable: LaunchableActivity;
  }
  const aus = new Map<string, AuInfo>();
  au.rows.forEach((r, i) => {
    const id = r.system_id;
    if (!id) throw new PackageError(`${auPath}: row ${i + 2} has an empty System_ID; every AU needs one`);
    if (aus.has(id.toLowerCase())) throw new PackageError(`${auPath}: the System_ID "${id}" is listed twice; AU System_IDs must be unique`);
    const href = r.file_name || r.command_line;
    if (!href) {
      throw new PackageError(`${auPath}: AU "${id}" has no File_Name; File_Name is the AU's launch URL (a path in the package or an absolute URL)`);
    }
    const check = checkLocalHref(source, href);
    if (check && !check.ok) {
      const msg = `${auPath}: AU "${id}" launches "${href}", but ${check.reason}`;
      if (checkFiles) throw new PackageError(msg);
      warnings.push(msg);
    }
    const d = descriptors.get(id.toLowerCase());
    if (!d) warnings.push(`${desPath} has no descriptor (Title) for AU "${id}"`);
    const title = d?.title || id;
    let scaledPassingScore: string | undefined;
    if (r.mastery_score) {
      const mastery = Number(r.mastery_score);
      const max = r.max_score ? Number(r.max_score) : 100;
      if (Number.isFinite(mastery) && Number.isFinite(max) && max > 0 && mastery >= 0 && mastery <= max) scaledPassingScore = decimalString(mastery / max);
      else warnings.push(`${auPath}: AU "${id}" has Mastery_Score "${r.mastery_score}", which is not a number from 0 to ${r.max_score || 100}; it is ignored`);
    }
    const activity: CourseActivity = { externalIdentifier: id, itemIdentifier: id, activityType: 'SCO', href, title, children: [] };
    if (scaledPassingScore !== undefined) activity.scaledPassingScore = scaledPassingScore;
    const data: Record<string, unknown> = {
      systemId: id,
      type: r.type || undefined,
      commandLine: r.command_line || undefined,
      fileName: r.file_name || undefined,
      maxScore: r.max_score || undefined,
      masteryScore: r.mastery_score || undefined,
      maxTimeAllowed: r.max_time_allowed || undefined,
      timeLimitAction: r.time_limit_action || undefined,
      systemVendor: r.system_vendor || undefined,
      coreVendor: r.core_vendor || undefined,
      webLaunch: r.web_launch || undefined,
      auPassword: r.au_password || undefined,
      description: d?.description || undefined,
      developerId: d?.developer_id || undefined,
      ...(scaledPassingScore !== undefined ? { scaledPassingScore } : {}),
    };
    for (const k of Object.keys(data)) if (data[k] === undefined) delete data[k];
    aus.set(id.toLowerCase(), {
      id,
      row: r,
      activity,
      launchable: { id, title, href, ...(r.web_launch ? { parameters: r.web_launch } : {}), data },
    });
  });

  // ---- course structure ----
  const blockIdx = cst.headers.indexOf('block');
  if (blockIdx < 0) throw new PackageError(`${cstPath}: the header row has no "Block" column; the .cst file lists each block and its members`);
  const memberCols = cst.headers.map((h, i) => (/^member/.test(h) ? i : -1)).filter((i) => i >= 0);
  if (memberCols.length === 0) throw new PackageError(`${cstPath}: the header row has no "Member" column; the .cst file lists each block and its members`);
  const extraCols = cst.headers.map((h, i) => (i !== blockIdx && !memberCols.includes(i) && h ? i : -1)).filter((i) => i >= 0);

  interface Member {
    id: string;
    extra: Record<string, string>;
  }
  const blocks = new Map<string, { id: string; members: Member[] }>();
  for (const r of cst.raw) {
    const b = (r[blockIdx] ?? '').trim();
    if (!b) continue;
    const key = b.toLowerCase();
    const entry = blocks.get(key) ?? { id: b, members: [] };
    blocks.set(key, entry);
    const extra = emptyRecord<string>();
    for (const i of extraCols) if ((r[i] ?? '').trim()) extra[cst.headers[i]] = (r[i] ?? '').trim();
    for (const i of memberCols) {
      const m = (r[i] ?? '').trim();
      if (m) entry.members.push({ id: m, extra });
    }
  }

  const placed = new Set<string>();
  const cstData = emptyRecord<Record<string, string>>();
  const flattened = new Set<string>();
  const build = (blockKey: string, stack: string[]): CourseActivity[] => {
    const block = blocks.get(blockKey);
    if (!block) return [];
    const out: CourseActivity[] = [];
    for (const m of block.members) {
      const key = m.id.toLowerCase();
      if (stack.includes(key)) throw new PackageError(`${cstPath}: block "${block.id}" contains "${m.id}", which contains it in turn; the course structure must be a tree`);
      const a = aus.get(key);
      if (a) {
        if (placed.has(key)) {
          warnings.push(`${cstPath}: AU "${a.id}" appears more than once in the course structure; only its first place is used`);
          continue;
        }
        placed.add(key);
        if (Object.keys(m.extra).length) cstData[a.id] = m.extra;
        out.push(a.activity);
        // An AU used as a block: its "members" are placed beside it (AUs cannot contain activities).
        if (blocks.has(key) && !flattened.has(key)) {
          flattened.add(key);
          warnings.push(`${cstPath} lists AU "${a.id}" as a block; an AU cannot contain other activities, so its members are placed after it`);
          out.push(...build(key, [...stack, key]));
        }
      } else if (blocks.has(key)) {
        if (placed.has(key)) continue;
        placed.add(key);
        const d = descriptors.get(key);
        out.push({
          externalIdentifier: blocks.get(key)!.id,
          itemIdentifier: blocks.get(key)!.id,
          activityType: 'AGGREGATION',
          title: d?.title || blocks.get(key)!.id,
          children: build(key, [...stack, key]),
        });
      } else {
        warnings.push(`${cstPath}: block "${block.id}" lists "${m.id}", which is neither an AU in ${auPath} nor a block in ${cstPath}; it is ignored`);
      }
    }
    return out;
  };
  let children: CourseActivity[];
  if (blocks.has('root')) children = build('root', ['root']);
  else {
    // No ROOT block: the top level is every block that no other block contains.
    const contained = new Set([...blocks.values()].flatMap((b) => b.members.map((m) => m.id.toLowerCase())));
    blocks.set('root', { id: 'ROOT', members: [...blocks.keys()].filter((k) => !contained.has(k)).map((k) => ({ id: blocks.get(k)!.id, extra: {} })) });
    children = build('root', ['root']);
  }
  for (const a of aus.values()) {
    if (!placed.has(a.id.toLowerCase())) {
      warnings.push(`AU "${a.id}" is not in the course structure (${cstPath}); it was added at the end of the course`);
      placed.add(a.id.toLowerCase());
      children.push(a.activity);
    }
  }

  // ---- launchables in tree order ----
  const launchables: LaunchableActivity[] = [];
  const collect = (acts: CourseActivity[]): void => {
    for (const act of acts) {
      const a = act.activityType === 'SCO' ? aus.get(act.externalIdentifier.toLowerCase()) : undefined;
      if (a) {
        const extra = cstData[a.id];
        launchables.push(extra ? { ...a.launchable, data: { ...a.launchable.data, courseStructure: extra } } : a.launchable);
      }
      collect(act.children);
    }
  };
  collect(children);

  const courseId = course['course_id'] || basename(crsPath).replace(/\.[^.]*$/, '');
  const courseTitle = course['course_title'];
  if (!courseTitle) warnings.push(`${crsPath} has no Course_Title in its [Course] section; the Course_ID is shown instead`);
  const title = courseTitle || courseId;
  const description = crs.text['course_description'] || undefined;

  const rootActivity: CourseActivity = { externalIdentifier: courseId, itemIdentifier: courseId, activityType: 'AGGREGATION', title, children };
  const packageData: Record<string, unknown> = {
    aicc: {
      files,
      course: crs.sections,
      ...(description ? { courseDescription: description } : {}),
      courseStructure: cst.raw.map((r) => Object.fromEntries(cst.headers.map((h, i) => [h || `column${i + 1}`, (r[i] ?? '').trim()]))),
      ...(ort ? { objectivesRelationships: ort.rows } : {}),
      ...(pre ? { prerequisites: pre.rows } : {}),
    },
  };

  return {
    standard: 'AICC',
    title,
    metadata: { title, ...(description ? { description } : {}) },
    rootActivity,
    launchables,
    packageData,
    warnings,
    courseLanguages: [],
  };
}
