import type { ValueTransformer } from 'typeorm';

/** JSON in a text column; null stays null. */
export const jsonColumn: ValueTransformer = {
  to: (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value)),
  from: (value: string | null) => (value === null || value === undefined ? null : (JSON.parse(value) as unknown)),
};

/** DOUBLE columns: MySQL may hand back strings. */
export const doubleColumn: ValueTransformer = {
  to: (value: number | null | undefined) => value ?? null,
  from: (value: string | number | null) => (value === null || value === undefined ? null : Number(value)),
};

export const bigintColumn: ValueTransformer = {
  to: (value: number) => value,
  from: (value: string | number) => Number(value),
};
