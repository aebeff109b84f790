import { Injectable, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { Brackets, DataSource, In, Repository, SelectQueryBuilder } from 'typeorm';
import { InvalidInputError } from '../../platform/http/domain-errors';
import { ClusterEvents } from '../../platform/redis/cluster-events.service';
import { ApplicationHooks } from '../applications/application-hooks';
import { SettingValueEntity } from './entities/setting-value.entity';
import { LEARNING_STANDARDS, LearningStandardName, SettingDefinition, SETTINGS } from './setting-catalogue';
import { findSetting, isEngineOnlySetting, normalizeSettingValue, parseLearningStandard } from './setting-values';

/** The course a registration-level target runs: its parents in the fallback chain. */
export interface SettingCourseRef {
  courseId: string;
  version: number;
  /** CourseSchema.courseLearningStandard of that version; with singleSco it finds the learning-standard bucket. */
  learningStandard?: string;
  singleSco?: boolean;
}

/**
 * Where settings are read or written. Course and registration targets carry their parents (the caller has
 * loaded them), so that the chain registration instance → registration → course version → course →
 * learning-standard bucket → application → default can be walked without this module knowing those tables.
 */
export type SettingTarget =
  | { level: 'application'; learningStandard?: string; singleSco?: boolean }
  | { level: 'course'; courseId: string; learningStandard?: string; singleSco?: boolean }
  | { level: 'courseVersion'; courseId: string; version: number; learningStandard?: string; singleSco?: boolean }
  | { level: 'registration'; registrationId: string; course: SettingCourseRef }
  | { level: 'registrationInstance'; registrationId: string; instance: number; course: SettingCourseRef };

/** SettingItem.effectiveValueSource: SCORM Cloud's enum has no version or instance levels; they report as course and registration. */
export type EffectiveValueSource = 'default' | 'application' | 'learningStandardForApplication' | 'course' | 'registration';

/** SettingMetadata */
export interface SettingMetadataView {
  default: string;
  dataType: string;
  settingDescription: string;
  level: string;
  learningStandards?: string[];
  learningStandardVariant: 'either';
  fallback?: string;
  validValues?: Array<{ value: string; valueDescription: string }>;
}

/** SettingItem */
export interface SettingItemView {
  id: string;
  effectiveValue: string;
  effectiveValueSource: EffectiveValueSource;
  explicitValue?: string;
  metadata?: SettingMetadataView;
}

export interface SettingInput {
  settingId: string;
  value: string;
  /** SettingsIndividualSchema.explicit. Every value posted is stored at the target's level whatever this says. */
  explicit?: boolean;
}

export interface ListOptions {
  includeMetadata?: boolean;
  /** Same as the target's own learningStandard/singleSco; used when the target does not name them. */
  learningStandard?: string;
  singleSco?: boolean;
}

/** One step of a fallback chain: a row key of setting_value and the source it reports. */
interface Scope {
  level: StoredLevel;
  targetId: string;
  variant: string;
  source: EffectiveValueSource;
}

type StoredLevel = 'application' | 'learningStandard' | 'course' | 'courseVersion' | 'registration' | 'registrationInstance';

const METADATA: ReadonlyMap<string, SettingMetadataView> = new Map(
  SETTINGS.map((s) => [
    s.id,
    Object.freeze({
      default: s.default,
      dataType: s.dataType,
      settingDescription: s.description,
      level: s.level,
      ...(s.learningStandards ? { learningStandards: [...s.learningStandards] } : {}),
      learningStandardVariant: 'either' as const,
      ...(s.validValues ? { validValues: s.validValues.map((v) => ({ value: v.value, valueDescription: v.description })) } : {}),
    }),
  ]),
);

/** Listed in id order (ordinal, as the ids are ASCII). */
const LISTED: readonly SettingDefinition[] = SETTINGS.filter((s) => !s.secret).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

const WRITE_CHUNK = 200;

/** ClusterEvents channel: an application's settings were written (message: its id); every node drops its cached values. */
const INVALIDATE_CHANNEL = 'settings-invalidate';
/** How long cached values are used at most: bounds the damage of a lost invalidation message (writes drop them at once). */
const CACHE_TTL_MS = 10_000;
/** Cached chains per application before its cache is emptied (bounds memory; a miss is one query). */
const CACHE_MAX_CHAINS = 2_000;

interface StoredRow {
  level: string;
  targetId: string;
  variant: string;
  settingId: string;
  value: string;
}

/** One application's cached rows: what is stored above the registrations, per chain, and whether any registration has values. */
interface AppSettingsCache {
  loadedAt: number;
  shared: Map<string, Promise<StoredRow[]>>;
  registrationRows?: Promise<boolean>;
}

const REGISTRATION_LEVELS: readonly string[] = ['registration', 'registrationInstance'];

/**
 * Configuration settings at every level, and their effective values through the fallback chain of the
 * settings catalogue (§A). Values are strings, validated against the catalogue and stored canonical.
 */
@Injectable()
export class SettingsService implements OnModuleInit {
  constructor(
    @InjectRepository(SettingValueEntity) private readonly values: Repository<SettingValueEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly hooks: ApplicationHooks,
    private readonly events: ClusterEvents,
  ) {}

  /**
   * The rows stored at the levels above a registration (application, bucket, course, course version) per chain, and
   * whether the application has any registration-level values: what every launch reads, kept in memory per
   * application. Every write of an application's settings (set, clear, purges) drops its entry on every node
   * (ClusterEvents: Redis pub/sub on the production stack; the writing node at once, before the write answers);
   * CACHE_TTL_MS bounds the damage of a lost message, and a lost subscription drops everything.
   */
  private readonly cache = new Map<string, AppSettingsCache>();

  onModuleInit(): void {
    this.hooks.registerPurger('settings', (appId) => this.purgeApplication(appId));
    this.events.on(INVALIDATE_CHANNEL, (message) => {
      if (message === ClusterEvents.RESET) {
        this.cache.clear();
        return;
      }
      // `appId write-id`: the writing node hears its message twice (at once, then back from Redis); the echo must not
      // drop what was cached since from committed rows.
      const space = message.lastIndexOf(' ');
      const writeId = message.slice(space + 1);
      if (this.heard.has(writeId)) {
        this.heard.delete(writeId);
        return;
      }
      if (this.heard.size >= 1_000) this.heard.clear();
      this.heard.add(writeId);
      this.cache.delete(message.slice(0, space));
    });
  }

  /** Ids of the invalidation messages heard once (see onModuleInit). */
  private readonly heard = new Set<string>();

  /** Drops the application's cached values on every node; after the write has committed. */
  private async invalidate(appId: string): Promise<void> {
    await this.events.publish(INVALIDATE_CHANNEL, `${appId} ${randomUUID()}`);
  }

  /** SettingListSchema for a target: every applicable setting, with where its effective value comes from. */
  async list(appId: string, target: SettingTarget, options: ListOptions = {}): Promise<{ settingItems: SettingItemView[] }> {
    const resolved = withListOptions(target, options);
    const chain = this.chain(resolved);
    const found = await this.load(appId, chain);
    const standard = standardOf(resolved);
    const settingItems: SettingItemView[] = [];
    for (const def of LISTED) {
      if (standard && def.learningStandards && !def.learningStandards.includes(standard)) continue;
      const perScope = found.get(def.id);
      const hit = perScope ? chain.findIndex((_, i) => perScope.has(i)) : -1;
      const item: SettingItemView = {
        id: def.id,
        effectiveValue: hit >= 0 ? perScope!.get(hit)! : def.default,
        effectiveValueSource: hit >= 0 ? chain[hit].source : 'default',
      };
      if (perScope?.has(0)) item.explicitValue = perScope.get(0);
      if (options.includeMetadata) item.metadata = METADATA.get(def.id);
      settingItems.push(item);
    }
    return { settingItems };
  }

  /** SettingsPostSchema at a target: everything is validated first, then written in one transaction. */
  async set(appId: string, target: SettingTarget, settings: SettingInput[]): Promise<void> {
    const own = this.chain(target)[0];
    const errors: string[] = [];
    const rows = new Map<string, string>();
    for (const input of settings) {
      const def = this.requireSetting(input.settingId, (id) => `${id} is not a valid setting ID`, errors);
      if (!def) continue;
      if (def.level === 'Tenant' && own.level !== 'application') {
        errors.push(`setting ${def.id} can only be set at the application level (without learningStandard), not on a ${levelName(own.level)}`);
        continue;
      }
      if (typeof input.value !== 'string') {
        errors.push(`value of setting ${def.id} must be a string`);
        continue;
      }
      const normalized = normalizeSettingValue(def, input.value);
      if (!normalized.ok) errors.push(normalized.message);
      else rows.set(def.id, normalized.value); // the last of repeated ids wins
    }
    if (errors.length > 0) throw new InvalidInputError(errors.join('; '));
    if (rows.size === 0) return;
    const now = new Date();
    const entities = [...rows].map(([settingId, value]) => ({ appId, level: own.level, targetId: own.targetId, variant: own.variant, settingId, value, updatedAt: now }));
    await this.dataSource.transaction(async (manager) => {
      for (let i = 0; i < entities.length; i += WRITE_CHUNK) {
        await manager.upsert(SettingValueEntity, entities.slice(i, i + WRITE_CHUNK), {
          conflictPaths: ['appId', 'level', 'targetId', 'variant', 'settingId'],
          skipUpdateIfNoValuesChanged: false,
        });
      }
    });
    await this.invalidate(appId);
  }

  /** Removes the value stored at exactly this target; the setting inherits again. Not set: nothing to do. */
  async clear(appId: string, target: SettingTarget, settingId: string): Promise<void> {
    const own = this.chain(target)[0];
    const errors: string[] = [];
    const def = this.requireSetting(settingId, (id) => `no such configuration setting '${id}'`, errors);
    if (!def) throw new InvalidInputError(errors.join('; '));
    await this.values.delete({ appId, level: own.level, targetId: own.targetId, variant: own.variant, settingId: def.id });
    await this.invalidate(appId);
  }

  /** Effective values of some settings (all when none are named) at a target, in one query. */
  async effective(appId: string, target: SettingTarget, settingIds?: readonly string[]): Promise<Map<string, string>> {
    const defs = settingIds ? settingIds.map((id) => findSetting(id) ?? unknownSetting(id)) : SETTINGS;
    const chain = this.chain(target);
    const found = await this.cachedLoad(appId, chain, settingIds ? defs.map((d) => d.id) : undefined);
    const result = new Map<string, string>();
    for (const def of defs) {
      const perScope = found.get(def.id);
      const hit = perScope ? chain.findIndex((_, i) => perScope.has(i)) : -1;
      result.set(def.id, hit >= 0 ? perScope!.get(hit)! : def.default);
    }
    return result;
  }

  /**
   * The applications whose own (application-level) value of a Tenant-level setting is `value` (stored normalised),
   * for background jobs that act per application on a setting whose default leaves them off.
   */
  async applicationsWith(settingId: string, value: string): Promise<string[]> {
    const rows = await this.values.find({ where: { level: 'application', targetId: '', variant: '', settingId, value }, select: { appId: true } });
    return rows.map((r) => r.appId);
  }

  /**
   * The settings (of those named) that are set somewhere on the target's fallback chain, with their effective values;
   * settings left at their default are absent (the player keeps its own behaviour for those).
   */
  async explicit(appId: string, target: SettingTarget, settingIds: readonly string[]): Promise<Map<string, string>> {
    const defs = settingIds.map((id) => findSetting(id) ?? unknownSetting(id));
    const chain = this.chain(target);
    const found = await this.cachedLoad(appId, chain, defs.map((d) => d.id));
    const result = new Map<string, string>();
    for (const def of defs) {
      const perScope = found.get(def.id);
      const hit = perScope ? chain.findIndex((_, i) => perScope.has(i)) : -1;
      if (hit >= 0) result.set(def.id, perScope!.get(hit)!);
    }
    return result;
  }

  /**
   * Deletes what is stored at a target and below it: a course takes its versions along, a registration its
   * instances, an application target without a learning standard its buckets too. For deleted resources.
   */
  async purgeTarget(appId: string, target: SettingTarget): Promise<void> {
    await this.deleteTarget(appId, target);
    await this.invalidate(appId);
  }

  private async deleteTarget(appId: string, target: SettingTarget): Promise<void> {
    switch (target.level) {
      case 'application': {
        if (target.learningStandard === undefined && target.singleSco === undefined) {
          await this.values.delete({ appId, level: In(['application', 'learningStandard']) });
        } else {
          const own = this.chain(target)[0];
          await this.values.delete({ appId, level: own.level, targetId: own.targetId, variant: own.variant });
        }
        return;
      }
      case 'course':
        await this.values.delete({ appId, level: In(['course', 'courseVersion']), targetId: target.courseId });
        return;
      case 'courseVersion':
        await this.values.delete({ appId, level: 'courseVersion', targetId: target.courseId, variant: String(target.version) });
        return;
      case 'registration':
        await this.values.delete({ appId, level: In(['registration', 'registrationInstance']), targetId: target.registrationId });
        return;
      case 'registrationInstance':
        await this.values.delete({ appId, level: 'registrationInstance', targetId: target.registrationId, variant: String(target.instance) });
        return;
    }
  }

  async purgeApplication(appId: string): Promise<void> {
    await this.values.delete({ appId });
    await this.invalidate(appId);
  }

  /** Most specific first. Validates the learning-standard pairing of an application target. */
  private chain(target: SettingTarget): Scope[] {
    const app: Scope = { level: 'application', targetId: '', variant: '', source: 'application' };
    const course = (courseId: string): Scope => ({ level: 'course', targetId: courseId, variant: '', source: 'course' });
    const version = (courseId: string, v: number): Scope => ({ level: 'courseVersion', targetId: courseId, variant: String(v), source: 'course' });
    const registration = (id: string): Scope => ({ level: 'registration', targetId: id, variant: '', source: 'registration' });
    switch (target.level) {
      case 'application': {
        if ((target.learningStandard === undefined) !== (target.singleSco === undefined)) {
          throw new InvalidInputError('learningStandard and singleSco must be given together');
        }
        if (target.learningStandard === undefined) return [app];
        const standard = parseLearningStandard(target.learningStandard);
        if (!standard) throw new InvalidInputError(`learningStandard must be one of ${LEARNING_STANDARDS.join(', ')}`);
        return [bucket(standard, target.singleSco!), app];
      }
      case 'course':
        return [course(target.courseId), ...courseBucket(target), app];
      case 'courseVersion':
        return [version(target.courseId, target.version), course(target.courseId), ...courseBucket(target), app];
      case 'registration': {
        const c = target.course;
        return [registration(target.registrationId), version(c.courseId, c.version), course(c.courseId), ...courseBucket(c), app];
      }
      case 'registrationInstance': {
        const c = target.course;
        return [
          { level: 'registrationInstance', targetId: target.registrationId, variant: String(target.instance), source: 'registration' },
          registration(target.registrationId),
          version(c.courseId, c.version),
          course(c.courseId),
          ...courseBucket(c),
          app,
        ];
      }
    }
  }

  /** settingId → (index in the chain → value), in one query. */
  private async load(appId: string, chain: Scope[], settingIds?: string[]): Promise<Map<string, Map<number, string>>> {
    if (settingIds && settingIds.length === 0) return new Map();
    return indexRows(chain, await this.rows(appId, chain, settingIds), settingIds);
  }

  /**
   * As load, from the cache: the rows above the registration levels as cached for this chain (one query on a miss,
   * all settings), and the registration levels' own rows (one query, only when the application has any).
   */
  private async cachedLoad(appId: string, chain: Scope[], settingIds?: string[]): Promise<Map<string, Map<number, string>>> {
    if (settingIds && settingIds.length === 0) return new Map();
    const now = Date.now();
    let app = this.cache.get(appId);
    if (!app || now - app.loadedAt > CACHE_TTL_MS || app.shared.size >= CACHE_MAX_CHAINS) {
      app = { loadedAt: now, shared: new Map() };
      this.cache.set(appId, app);
    }
    const entry = app;
    const own = chain.filter((c) => REGISTRATION_LEVELS.includes(c.level));
    const shared = chain.filter((c) => !REGISTRATION_LEVELS.includes(c.level));
    const key = shared.map((c) => `${c.level}\u0000${c.targetId}\u0000${c.variant}`).join('\u0001');
    let sharedRows = entry.shared.get(key);
    if (!sharedRows) {
      sharedRows = this.rows(appId, shared);
      entry.shared.set(key, sharedRows);
      // A failed read is not kept.
      sharedRows.catch(() => entry.shared.get(key) === sharedRows && entry.shared.delete(key));
    }
    const ownRows = async (): Promise<StoredRow[]> => {
      if (own.length === 0) return [];
      if (!entry.registrationRows) {
        const any = this.values
          .createQueryBuilder('s')
          .select('s.settingId')
          .where('s.appId = :appId AND s.level IN (:...levels)', { appId, levels: REGISTRATION_LEVELS })
          .limit(1)
          .getRawOne()
          .then((row) => row !== undefined);
        entry.registrationRows = any;
        any.catch(() => entry.registrationRows === any && delete entry.registrationRows);
      }
      return (await entry.registrationRows) ? this.rows(appId, own, settingIds) : [];
    };
    const [above, below] = await Promise.all([sharedRows, ownRows()]);
    return indexRows(chain, [...below, ...above], settingIds);
  }

  /** The rows stored at the chain's scopes (of some settings, or all), in one query. */
  private async rows(appId: string, chain: Scope[], settingIds?: string[]): Promise<StoredRow[]> {
    const qb: SelectQueryBuilder<SettingValueEntity> = this.values
      .createQueryBuilder('s')
      .select(['s.level', 's.targetId', 's.variant', 's.settingId', 's.value'])
      .where('s.appId = :appId', { appId })
      .andWhere(
        new Brackets((or) => {
          chain.forEach((scope, i) => {
            or.orWhere(`(s.level = :level${i} AND s.targetId = :target${i} AND s.variant = :variant${i})`, {
              [`level${i}`]: scope.level,
              [`target${i}`]: scope.targetId,
              [`variant${i}`]: scope.variant,
            });
          });
        }),
      );
    if (settingIds) qb.andWhere('s.settingId IN (:...settingIds)', { settingIds });
    return (await qb.getMany()).map((r) => ({ level: r.level, targetId: r.targetId, variant: r.variant, settingId: r.settingId, value: r.value }));
  }

  private requireSetting(id: unknown, unknownMessage: (id: string) => string, errors: string[]): SettingDefinition | undefined {
    if (typeof id !== 'string' || id === '') {
      errors.push('settingId must be a non-empty string');
      return undefined;
    }
    const def = findSetting(id);
    if (def) return def;
    errors.push(isEngineOnlySetting(id) ? `setting ${id} cannot be set through the API` : unknownMessage(id));
    return undefined;
  }
}

/** settingId → (index in the chain → value), of the settings named (all when none are). */
function indexRows(chain: Scope[], rows: StoredRow[], settingIds?: string[]): Map<string, Map<number, string>> {
  const wanted = settingIds ? new Set(settingIds) : null;
  const result = new Map<string, Map<number, string>>();
  for (const row of rows) {
    if (wanted && !wanted.has(row.settingId)) continue;
    const index = chain.findIndex((c) => c.level === row.level && c.targetId === row.targetId && c.variant === row.variant);
    if (index < 0) continue;
    let perScope = result.get(row.settingId);
    if (!perScope) result.set(row.settingId, (perScope = new Map<number, string>()));
    perScope.set(index, row.value);
  }
  return result;
}

function bucket(standard: LearningStandardName, singleSco: boolean): Scope {
  return { level: 'learningStandard', targetId: standard, variant: singleSco ? 'single' : 'multi', source: 'learningStandardForApplication' };
}

/** A course's learning-standard bucket, when its standard and single-SCO-ness are known. */
function courseBucket(c: { learningStandard?: string; singleSco?: boolean }): Scope[] {
  if (c.learningStandard === undefined || c.singleSco === undefined) return [];
  const standard = parseLearningStandard(c.learningStandard);
  return standard ? [bucket(standard, c.singleSco)] : [];
}

function standardOf(target: SettingTarget): LearningStandardName | undefined {
  const raw = target.level === 'registration' || target.level === 'registrationInstance' ? target.course.learningStandard : target.learningStandard;
  return raw === undefined ? undefined : parseLearningStandard(raw);
}

function withListOptions(target: SettingTarget, options: ListOptions): SettingTarget {
  if (options.learningStandard === undefined && options.singleSco === undefined) return target;
  if (target.level === 'registration' || target.level === 'registrationInstance') {
    return { ...target, course: { ...target.course, learningStandard: target.course.learningStandard ?? options.learningStandard, singleSco: target.course.singleSco ?? options.singleSco } };
  }
  return { ...target, learningStandard: target.learningStandard ?? options.learningStandard, singleSco: target.singleSco ?? options.singleSco };
}

function levelName(level: StoredLevel): string {
  return (
    {
      application: 'application',
      learningStandard: 'learning-standard bucket',
      course: 'course',
      courseVersion: 'course version',
      registration: 'registration',
      registrationInstance: 'registration instance',
    } as const
  )[level];
}

function unknownSetting(id: string): never {
  throw new Error(`unknown setting id ${id}`);
}
