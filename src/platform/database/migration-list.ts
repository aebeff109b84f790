import { Foundation1763800000000 } from './migrations/1763800000000-foundation';
import { Courses1763900000000 } from './migrations/1763900000000-courses';

/** Every migration in order; one list for SQLite and MySQL, for the server, the CLI and ormconfig.ts. */
export const MIGRATIONS = [Foundation1763800000000, Courses1763900000000];
