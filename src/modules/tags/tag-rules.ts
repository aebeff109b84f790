import { InvalidInputError } from '../../platform/http/domain-errors';

/** Resource types that carry tags; one table and one mechanism for all of them. */
export const TAGGABLE_TYPES = ['course', 'registration', 'invitation', 'learner', 'dispatch', 'destination'] as const;
export type TaggableType = (typeof TAGGABLE_TYPES)[number];

export const MAX_TAG_LENGTH = 191;
export const MAX_TAGS_PER_CALL = 100;
export const MAX_IDS_PER_BATCH = 1000;

/** Trimmed, non-empty, at most 191 characters, at most 100, duplicates dropped (first spelling kept). */
export function normalizeTags(tags: unknown, field = 'tags'): string[] {
  if (!Array.isArray(tags)) throw new InvalidInputError(`${field} must be an array of strings`);
  const out = new Set<string>();
  for (const tag of tags as unknown[]) {
    if (typeof tag !== 'string') throw new InvalidInputError(`${field} must be an array of strings`);
    const trimmed = tag.trim();
    if (trimmed === '') throw new InvalidInputError(`${field}: a tag must not be empty`);
    if (trimmed.length > MAX_TAG_LENGTH) throw new InvalidInputError(`${field}: a tag may have at most ${MAX_TAG_LENGTH} characters`);
    out.add(trimmed);
    if (out.size > MAX_TAGS_PER_CALL) throw new InvalidInputError(`${field} may list at most ${MAX_TAGS_PER_CALL} tags`);
  }
  return [...out];
}

/** Resource ids of a batch: non-empty strings, duplicates dropped. */
export function normalizeIds(ids: unknown, field = 'ids'): string[] {
  if (!Array.isArray(ids)) throw new InvalidInputError(`${field} must be an array of strings`);
  const out = new Set<string>();
  for (const id of ids as unknown[]) {
    if (typeof id !== 'string' || id === '') throw new InvalidInputError(`${field} must be an array of non-empty strings`);
    if (id.length > 191) throw new InvalidInputError(`${field}: an id may have at most 191 characters`);
    out.add(id);
    if (out.size > MAX_IDS_PER_BATCH) throw new InvalidInputError(`${field} may list at most ${MAX_IDS_PER_BATCH} ids`);
  }
  return [...out];
}
