import { leanRead } from '../../platform/database/lean-read';
import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, Repository } from 'typeorm';
import { ConflictError, InvalidInputError, NotFoundError } from '../../platform/http/domain-errors';
import { ListQuery } from '../../platform/http/list-query';
import { PageTokens } from '../../platform/http/page-tokens';
import { datedCursor, dispatchServiceList } from './dispatch-lists';
import { normalizeTags } from '../tags/tag-rules';
import { TagsService } from '../tags/tags.service';
import { DestinationDto, DestinationIdDto } from './dto/dispatch.dto';
import { DestinationListQueryDto } from './dto/dispatch-query.dto';
import { DestinationEntity } from './entities/destination.entity';
import { DispatchEntity } from './entities/dispatch.entity';

/** DestinationSchema / DestinationInfoSchema */
export interface DestinationView {
  name: string;
  dispatchCount?: number;
  updated: string;
  created: string;
  tags: string[];
  email?: string;
  notes?: string;
  launchAuth?: DestinationEntity['launchAuth'];
  lti13Data?: DestinationEntity['lti13Data'];
}

/** Dispatch destinations: the client systems dispatches go to. Their dispatches are DispatchesService's. */
@Injectable()
export class DestinationsService {
  private readonly listQuery: ListQuery;

  constructor(
    @InjectRepository(DestinationEntity) private readonly destinations: Repository<DestinationEntity>,
    @InjectRepository(DispatchEntity) private readonly dispatches: Repository<DispatchEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tags: TagsService,
    tokens: PageTokens,
  ) {
    this.listQuery = dispatchServiceList(tokens, 'destinations', 'd', { destination_id: 'd.id', name: 'd.name' }, 'destination_id');
  }

  /** CreateDestinations: all or nothing; an id already in use is a conflict. */
  async create(appId: string, list: DestinationIdDto[]): Promise<void> {
    const ids = list.map((d) => d.id);
    if (new Set(ids).size !== ids.length) throw new InvalidInputError('destinations: an id is listed twice');
    const rows = list.map((d) => this.entityOf(appId, d.id, d.data, null));
    const tagSets = list.map((d) => normalizeTags(d.data.tags ?? []));
    await this.dataSource.transaction(async (m) => {
      const taken = await m.find(DestinationEntity, { where: { appId, id: In(ids) }, select: { id: true } });
      if (taken.length) throw new ConflictError(`Destination '${taken[0].id}' already exists`);
      for (const row of rows) await m.insert(DestinationEntity, row);
      for (const [i, row] of rows.entries()) if (tagSets[i].length) await this.tags.add(appId, 'destination', row.id, tagSets[i], m);
    });
  }

  /** SetDestination: creates the destination or replaces its fields (tags only when the body lists them). */
  async set(appId: string, id: string, body: DestinationDto): Promise<void> {
    if (id.length > 191) throw new InvalidInputError('destinationId may have at most 191 characters');
    const tags = body.tags !== undefined ? normalizeTags(body.tags) : undefined;
    await this.dataSource.transaction(async (m) => {
      const existing = await m.findOneBy(DestinationEntity, { appId, id });
      const row = this.entityOf(appId, id, body, existing);
      await m.save(DestinationEntity, row);
      if (tags !== undefined) await this.tags.replace(appId, 'destination', id, tags, m);
    });
  }

  private entityOf(appId: string, id: string, body: DestinationDto, existing: DestinationEntity | null): DestinationEntity {
    const now = new Date();
    return {
      appId,
      id,
      name: body.name ?? existing?.name ?? id,
      email: body.email ?? null,
      notes: body.notes ?? null,
      launchAuth: body.launchAuth ? { ...body.launchAuth, ...(body.launchAuth.type ? { type: body.launchAuth.type.toLowerCase() } : {}) } : null,
      lti13Data: body.lti13Data ?? null,
      hashUserInfo: existing?.hashUserInfo ?? false,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
  }

  async require(appId: string, id: string): Promise<DestinationEntity> {
    const row = await leanRead(this.destinations, ['appId', 'id']).one({ appId, id });
    if (!row) throw new NotFoundError('Destination', id);
    return row;
  }

  async requireAll(appId: string, ids: readonly string[]): Promise<void> {
    const unique = [...new Set(ids)];
    const found = new Set((await this.destinations.find({ where: { appId, id: In(unique) }, select: { id: true } })).map((r) => r.id));
    const missing = unique.find((id) => !found.has(id));
    if (missing !== undefined) throw new NotFoundError('Destination', missing);
  }

  async names(appId: string, ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.destinations.find({ where: { appId, id: In([...new Set(ids)]) }, select: { id: true, name: true } });
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  async get(appId: string, id: string, includeDispatchCount: boolean): Promise<DestinationView> {
    const row = await this.require(appId, id);
    const counts = includeDispatchCount ? await this.dispatchCounts(appId, [id]) : null;
    return this.view(row, await this.tags.get(appId, 'destination', id), counts);
  }

  async list(appId: string, query: DestinationListQueryDto): Promise<{ destinations: Array<{ id: string; data: DestinationView }>; more?: string; total?: number }> {
    const resolved = this.listQuery.resolveFilters(appId, {
      ...query,
      extra: { ...(query.courseId !== undefined ? { courseId: query.courseId } : {}), tags: query.tags ?? [], includeDispatchCount: query.includeDispatchCount === true },
    });
    const f = resolved.filters;
    const qb = this.destinations.createQueryBuilder('d').where('d.appId = :appId', { appId });
    if (typeof f.courseId === 'string') {
      qb.andWhere('EXISTS (SELECT 1 FROM dispatch x WHERE x.app_id = d.app_id AND x.destination_id = d.id AND x.course_id = :courseId)', { courseId: f.courseId });
    }
    this.tags.applyTagFilter(qb, 'd', 'id', appId, 'destination', (f.tags as string[] | undefined) ?? []);
    const page = await this.listQuery.page(appId, qb, resolved, datedCursor(f), {
      includeTotalCount: query.includeTotalCount === true && query.more === undefined,
    });
    const ids = page.items.map((d) => d.id);
    const tags = await this.tags.tagsFor(appId, 'destination', ids);
    const counts = f.includeDispatchCount === true ? await this.dispatchCounts(appId, ids) : null;
    return { destinations: page.items.map((d) => ({ id: d.id, data: this.view(d, tags.get(d.id) ?? [], counts) })), more: page.more, total: page.total };
  }

  async setHashUserInfo(appId: string, id: string, enabled: boolean, m: EntityManager): Promise<void> {
    await m.update(DestinationEntity, { appId, id }, { hashUserInfo: enabled, updatedAt: new Date() });
  }

  async remove(appId: string, id: string, m: EntityManager): Promise<void> {
    await m.delete(DestinationEntity, { appId, id });
  }

  async purgeApplication(appId: string): Promise<void> {
    await this.destinations.delete({ appId });
  }

  private async dispatchCounts(appId: string, ids: string[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const rows = await this.dispatches
      .createQueryBuilder('x')
      .select('x.destinationId', 'id')
      .addSelect('COUNT(*)', 'n')
      .where({ appId, destinationId: In(ids) })
      .groupBy('x.destinationId')
      .getRawMany<{ id: string; n: string | number }>();
    return new Map(ids.map((id) => [id, Number(rows.find((r) => r.id === id)?.n ?? 0)]));
  }

  private view(d: DestinationEntity, tags: string[], counts: Map<string, number> | null): DestinationView {
    return {
      name: d.name,
      ...(counts ? { dispatchCount: counts.get(d.id) ?? 0 } : {}),
      updated: d.updatedAt.toISOString(),
      created: d.createdAt.toISOString(),
      tags,
      ...(d.email !== null ? { email: d.email } : {}),
      ...(d.notes !== null ? { notes: d.notes } : {}),
      ...(d.launchAuth ? { launchAuth: d.launchAuth } : {}),
      ...(d.lti13Data ? { lti13Data: d.lti13Data } : {}),
    };
  }
}
