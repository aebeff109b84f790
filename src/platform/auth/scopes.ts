/** The OAuth2 scopes of the contract, as a typed map; controllers never spell a scope as a literal. */
export const Scope = {
  Read: 'read',
  Write: 'write',
  Delete: 'delete',
  Admin: 'admin',
  ReadCourse: 'read:course',
  WriteCourse: 'write:course',
  DeleteCourse: 'delete:course',
  ReadDispatch: 'read:dispatch',
  WriteDispatch: 'write:dispatch',
  DeleteDispatch: 'delete:dispatch',
  ReadInvitation: 'read:invitation',
  WriteInvitation: 'write:invitation',
  DeleteInvitation: 'delete:invitation',
  ReadPing: 'read:ping',
  ReadRegistration: 'read:registration',
  WriteRegistration: 'write:registration',
  DeleteRegistration: 'delete:registration',
  ReadReporting: 'read:reporting',
  ReadXapiCredential: 'read:xapicredential',
  WriteXapiCredential: 'write:xapicredential',
  DeleteXapiCredential: 'delete:xapicredential',
  ReadXapiPipe: 'read:xapipipe',
  WriteXapiPipe: 'write:xapipipe',
  DeleteXapiPipe: 'delete:xapipipe',
  ReadAppMgmt: 'read:appmgmt',
  WriteAppMgmt: 'write:appmgmt',
  DeleteAppMgmt: 'delete:appmgmt',
  ReadLearner: 'read:learner',
  WriteLearner: 'write:learner',
  ReadAbout: 'read:about',
  // LCDS's own operations (/api/v2/lcds/…).
  ReadAudit: 'read:audit',
  ReadJobs: 'read:jobs',
  WriteJobs: 'write:jobs',
} as const;

export type ScopeName = (typeof Scope)[keyof typeof Scope];

export const ALL_SCOPES: readonly ScopeName[] = Object.values(Scope);

export function isScope(value: string): value is ScopeName {
  return (ALL_SCOPES as readonly string[]).includes(value);
}

/** `admin` grants everything; otherwise the token needs one of the scopes the operation lists. */
export function scopesCover(granted: readonly string[], required: readonly ScopeName[]): boolean {
  return granted.includes(Scope.Admin) || required.some((s) => granted.includes(s));
}
