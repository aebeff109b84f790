import { Scope } from '../../platform/auth/scopes';

/** The scopes of the dispatch operations: the service's own, or the general ones. */
export const R = [Scope.ReadDispatch, Scope.Read] as const;
export const W = [Scope.WriteDispatch, Scope.Write] as const;
export const D = [Scope.DeleteDispatch, Scope.Delete] as const;
