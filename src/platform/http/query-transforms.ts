import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsDate, IsOptional, IsString, MaxLength } from 'class-validator';

const ISO_8601 =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/** Parses an ISO 8601 date or date-time; a value without a zone is UTC, as the real service reads it. */
export function parseIsoDate(value: unknown): unknown {
  if (typeof value !== 'string' || !ISO_8601.test(value.trim())) return value;
  let text = value.trim().replace(' ', 'T').replace(',', '.');
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) text += 'T00:00:00Z';
  else if (!/(Z|[+-]\d{2}(:?\d{2})?)$/i.test(text)) text += 'Z';
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? value : date;
}

/** Optional ISO 8601 query parameter (since, until, …). */
export function QueryDate(): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    Transform(({ value }) => parseIsoDate(value)),
    IsDate({ message: ({ property }) => `${property} must be an ISO 8601 date-time such as 2024-01-31T12:00:00Z` }),
  );
}

/** Optional boolean query parameter: only `true` and `false` are accepted. */
export function QueryBoolean(): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value)),
    IsBoolean({ message: ({ property }) => `${property} must be true or false` }),
  );
}

/** Comma-separated list (`tags=a,b,c`, collectionFormat csv); repeated parameters are accepted too. */
export function QueryCsv(maxItems = 100): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    Transform(({ value }) => {
      const parts = (Array.isArray(value) ? value : [value]).flatMap((v: unknown) => (typeof v === 'string' ? v.split(',') : [v]));
      return parts.map((p) => (typeof p === 'string' ? p.trim() : p)).filter((p) => p !== '');
    }),
    IsArray(),
    IsString({ each: true }),
    MaxLength(255, { each: true }),
    ArrayMaxSize(maxItems, { message: ({ property }) => `${property} may list at most ${maxItems} values` }),
  );
}

/** Optional free-text query parameter with a length cap. */
export function QueryString(maxLength = 1000): PropertyDecorator {
  return applyDecorators(IsOptional(), IsString(), MaxLength(maxLength));
}
