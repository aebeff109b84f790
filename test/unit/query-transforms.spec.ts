import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { QueryBoolean, QueryCsv, QueryDate, parseIsoDate } from '../../src/platform/http/query-transforms';

class ListQuery {
  @QueryDate() since?: Date;
  @QueryBoolean() includeTotalCount?: boolean;
  @QueryCsv(3) tags?: string[];
}

function parse(query: Record<string, unknown>) {
  const dto = plainToInstance(ListQuery, query);
  const errors = validateSync(dto).flatMap((e) => Object.values(e.constraints ?? {}));
  return { dto, errors };
}

describe('query parameter conventions', () => {
  it('reads tags as comma-separated values, also from repeated parameters', () => {
    expect(parse({ tags: 'a,b' }).dto.tags).toEqual(['a', 'b']);
    expect(parse({ tags: ['a,b', 'c'] }).dto.tags).toEqual(['a', 'b', 'c']);
    expect(parse({ tags: 'a,,b ,' }).dto.tags).toEqual(['a', 'b']);
    expect(parse({ tags: 'a,b,c,d' }).errors).toEqual(['tags may list at most 3 values']);
  });

  it('reads ISO 8601 dates, UTC when no zone is given', () => {
    expect(parseIsoDate('2024-03-01T10:00:00Z')).toEqual(new Date('2024-03-01T10:00:00Z'));
    expect(parseIsoDate('2024-03-01T10:00:00')).toEqual(new Date('2024-03-01T10:00:00Z'));
    expect(parseIsoDate('2024-03-01T10:00:00.123+02:00')).toEqual(new Date('2024-03-01T08:00:00.123Z'));
    expect(parseIsoDate('2024-03-01')).toEqual(new Date('2024-03-01T00:00:00Z'));
    expect(parse({ since: 'last tuesday' }).errors[0]).toMatch(/since must be an ISO 8601 date-time/);
    expect(parse({ since: '2024-13-45T99:00:00Z' }).errors[0]).toMatch(/since/);
  });

  it('accepts only true and false for booleans', () => {
    expect(parse({ includeTotalCount: 'true' }).dto.includeTotalCount).toBe(true);
    expect(parse({ includeTotalCount: 'false' }).dto.includeTotalCount).toBe(false);
    expect(parse({ includeTotalCount: '1' }).errors).toEqual(['includeTotalCount must be true or false']);
  });
});
