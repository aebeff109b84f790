import type { CourseActivity, LaunchableActivity } from '../courses/packages/package-types';
import type { ActivityResult } from '../registrations/registration-types';
import { findActivity } from './scorm-runtime';

/** One row of the player's table of contents: an aggregation heading, or a launchable item. */
export interface TocEntry {
  kind: 'heading' | 'item';
  id: string;
  title: string;
  depth: number;
  /** Items: the activity's completion as the registration stores it. */
  completion?: string;
  success?: string;
  /** Items: the learner may pick this item from the table of contents (SCORM 2004 controlMode choice). */
  choice?: boolean;
  /** Items: Continue/Previous may leave or enter this item (SCORM 2004 controlMode flow). */
  flow?: boolean;
}

export interface PlayerNav {
  toc: TocEntry[];
  /** Launchable ids in tree order (the order Continue and Previous follow). */
  order: string[];
}

interface XmlJsonLike {
  name?: string;
  attributes?: Record<string, string>;
  children?: XmlJsonLike[];
}

const localName = (name: string | undefined) => (name ?? '').replace(/^.*:/, '');

/** The imsss:controlMode attributes of a stored sequencing element (local first, then the shared IDRef one). */
function controlModeOf(data: Record<string, unknown> | undefined, collection: Record<string, unknown> | undefined): { choice?: boolean; flow?: boolean } {
  const out: { choice?: boolean; flow?: boolean } = {};
  const local = data?.sequencing as XmlJsonLike | undefined;
  const sources: Array<XmlJsonLike | undefined> = [local];
  const idRef = typeof data?.sequencingIdRef === 'string' ? data.sequencingIdRef : local?.attributes?.IDRef?.trim();
  if (idRef && collection) sources.push(collection[idRef] as XmlJsonLike | undefined);
  for (const seq of sources) {
    const cm = seq?.children?.find((c) => localName(c.name) === 'controlMode');
    if (!cm?.attributes) continue;
    for (const key of ['choice', 'flow'] as const) {
      const v = cm.attributes[key];
      if (out[key] === undefined && v !== undefined) out[key] = v.trim() !== 'false';
    }
  }
  return out;
}

/**
 * The table of contents of a course version: the tree's aggregations as headings (the root, the organization,
 * is not shown), launchable activities as items in tree order. For SCORM 2004 an item's choice/flow is false when
 * the organization or any enclosing aggregation says `controlMode choice="false"` / `flow="false"`; SCORM 1.2 allows both.
 */
export function buildNav(
  root: CourseActivity | null,
  launchables: LaunchableActivity[],
  packageData: Record<string, unknown> | undefined,
  is2004: boolean,
  tree: ActivityResult | null,
): PlayerNav {
  const byId = new Map(launchables.map((l) => [l.id, l]));
  const activities = (packageData?.activities ?? {}) as Record<string, Record<string, unknown>>;
  const collection = packageData?.sequencingCollection as Record<string, unknown> | undefined;
  const organization = packageData?.organization as Record<string, unknown> | undefined;
  const toc: TocEntry[] = [];
  const order: string[] = [];
  const item = (id: string, title: string, depth: number, choice: boolean, flow: boolean) => {
    const node = tree ? findActivity(tree, id) : null;
    toc.push({ kind: 'item', id, title, depth, completion: node?.activityCompletion ?? 'UNKNOWN', success: node?.activitySuccess ?? 'UNKNOWN', choice, flow });
    order.push(id);
  };
  const walk = (a: CourseActivity, depth: number, choice: boolean, flow: boolean) => {
    if (byId.has(a.externalIdentifier)) item(a.externalIdentifier, byId.get(a.externalIdentifier)!.title || a.title, depth, choice, flow);
    else if (a.children.length) toc.push({ kind: 'heading', id: a.externalIdentifier, title: a.title, depth });
    if (!a.children.length) return;
    // The control modes of this activity govern navigation among its children.
    const cm = is2004 ? controlModeOf(activities[a.externalIdentifier], collection) : {};
    for (const c of a.children) walk(c, depth + 1, choice && cm.choice !== false, flow && cm.flow !== false);
  };
  if (root) {
    const orgCm = is2004 ? controlModeOf({ sequencing: organization?.sequencing }, collection) : {};
    for (const c of root.children) walk(c, 0, orgCm.choice !== false, orgCm.flow !== false);
  }
  // Launchables the tree does not show (should not happen): append them so every one stays reachable.
  for (const l of launchables) if (!order.includes(l.id)) item(l.id, l.title, 0, true, true);
  return { toc, order };
}
