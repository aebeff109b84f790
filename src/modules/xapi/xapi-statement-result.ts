type JsonObject = Record<string, unknown>;

const OBJECT_KEYS: Record<string, string> = {
  Agent: 'objectAgentGroup',
  Group: 'objectAgentGroup',
  StatementRef: 'objectStatementReference',
  SubStatement: 'objectSubStatement',
};

/**
 * XapiStatement of the API V2 (`XapiStatementResult`): the statement's `object` travels as one of
 * `objectActivity`, `objectAgentGroup`, `objectStatementReference` or `objectSubStatement`.
 */
export function toApiStatement(statement: JsonObject): JsonObject {
  const { object, ...rest } = statement;
  if (object === null || typeof object !== 'object') return rest;
  const target = object as JsonObject;
  const key = OBJECT_KEYS[String(target.objectType)] ?? 'objectActivity';
  return { ...rest, [key]: key === 'objectSubStatement' ? toApiStatement(target) : target };
}
