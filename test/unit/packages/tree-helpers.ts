import type { CourseActivity, ParsedPackage } from '../../../src/modules/courses/packages/package-types';

export function countActivities(root: CourseActivity, type: CourseActivity['activityType']): number {
  return (root.activityType === type ? 1 : 0) + root.children.reduce((n, c) => n + countActivities(c, type), 0);
}

export function flatten(root: CourseActivity): CourseActivity[] {
  return [root, ...root.children.flatMap(flatten)];
}

export function findActivity(root: CourseActivity, id: string): CourseActivity | undefined {
  return flatten(root).find((a) => a.externalIdentifier === id);
}

/** Invariants every parsed package must satisfy, whatever its standard. */
export function expectWellFormed(p: ParsedPackage): void {
  const all = flatten(p.rootActivity);
  const ids = all.map((a) => a.externalIdentifier);
  expect(new Set(ids).size).toBe(ids.length);
  expect(p.title.length).toBeGreaterThan(0);
  expect(p.launchables.length).toBeGreaterThan(0);
  // Launchables are activities of the tree, in tree order, each with an href.
  const order = all.map((a) => a.externalIdentifier);
  let last = -1;
  for (const l of p.launchables) {
    const idx = order.indexOf(l.id);
    expect(idx).toBeGreaterThan(last);
    last = idx;
    expect(l.href.length).toBeGreaterThan(0);
  }
  // Everything must survive a JSON round trip (it is stored as JSON with the course version).
  expect(JSON.parse(JSON.stringify(p))).toEqual(p);
}
