/**
 * LOM metadata (IMS Meta-data 1.2.x as in SCORM 1.2, IEEE LOM as in SCORM 2004) → MetadataSchema fields.
 * Element names are matched by local name, case-insensitively (`typicallearningtime` in IMS MD, `typicalLearningTime` in
 * IEEE LOM); both text containers are read (`langstring xml:lang` in IMS MD, `string language` in IEEE LOM).
 */
import { childElement, childElements, elementText, type XmlElement } from '../../../platform/xml/safe-xml';
import type { CourseMetadata } from './package-types';
import { xmlLangOf } from './package-xml';

export interface LomResult {
  metadata: CourseMetadata;
  languages: string[];
}

interface LangText {
  text: string;
  lang?: string;
}

function child(el: XmlElement | undefined, local: string): XmlElement | undefined {
  return el ? childElement(el, local, undefined, true) : undefined;
}

/** Texts of a LOM langstring container: `<langstring xml:lang>` (IMS MD) or `<string language>` (IEEE LOM). */
function langTexts(container: XmlElement | undefined): LangText[] {
  if (!container) return [];
  const out: LangText[] = [];
  for (const c of container.children) {
    const local = c.local.toLowerCase();
    if (local !== 'langstring' && local !== 'string') continue;
    const text = elementText(c);
    if (!text) continue;
    const lang = local === 'string' ? c.attributes.find((a) => a.local === 'language')?.value : xmlLangOf(c);
    out.push({ text, lang: lang?.trim() || undefined });
  }
  // A container that holds its text directly (seen in hand-written metadata).
  if (out.length === 0) {
    const direct = elementText(container);
    if (direct && container.children.length === 0) out.push({ text: direct });
  }
  return out;
}

/** Duration of LOM `duration`/`typicalLearningTime`: `<datetime>` (IMS MD), `<duration>` (IEEE LOM) or direct text. */
function durationText(el: XmlElement | undefined): string | undefined {
  if (!el) return undefined;
  return elementText(child(el, 'datetime')) ?? elementText(child(el, 'duration')) ?? elementText(el);
}

export function readLom(lom: XmlElement): LomResult {
  const general = child(lom, 'general');
  const metadata: CourseMetadata = {};
  const languages: string[] = [];

  const title = langTexts(child(general, 'title'))[0];
  if (title) {
    metadata.title = title.text;
    if (title.lang) metadata.titleLanguage = title.lang;
  }
  const description = general ? childElements(general, 'description', undefined, true).flatMap(langTexts)[0] : undefined;
  if (description) {
    metadata.description = description.text;
    if (description.lang) metadata.descriptionLanguage = description.lang;
  }
  const keywords = general ? childElements(general, 'keyword', undefined, true).flatMap(langTexts).map((k) => k.text) : [];
  if (keywords.length) metadata.keywords = [...new Set(keywords)];

  const duration = durationText(child(child(lom, 'technical'), 'duration'));
  if (duration) metadata.duration = duration;
  const typical = durationText(child(child(lom, 'educational'), 'typicalLearningTime'));
  if (typical) metadata.typicalTime = typical;

  if (general) for (const l of childElements(general, 'language', undefined, true)) {
    const t = elementText(l);
    if (t) languages.push(t);
  }
  for (const t of [title, description]) if (t?.lang) languages.push(t.lang);
  return { metadata, languages };
}
