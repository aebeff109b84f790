/**
 * The deepest nesting of objects and arrays a JSON body may have. Validation, class-transformer and our own walks
 * of a body (canonical JSON, key checks) recurse once a level: a body of a few KB nested thousands deep would
 * overflow the stack (a 500) where the client deserves a 400. Nothing the API takes is nested anywhere near this
 * (an activity tree of 40 levels is 80 here; xAPI extensions are the deepest anyone sends in practice).
 */
export const MAX_JSON_DEPTH = 100;

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether the JSON text nests objects and arrays deeper than `max`, by one pass over its bytes (brackets inside
 * strings do not count). Text too short to nest that deep is not read. Malformed text is the parser's to refuse:
 * this only answers how deep it would go.
 */
export function jsonNestsDeeperThan(text: Buffer | string, max = MAX_JSON_DEPTH): boolean {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  if (bytes.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
      if (++depth > max) return true;
    } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) depth--;
  }
  return false;
}

/** The message of the 400 for such a body. */
export const TOO_DEEP_MESSAGE = `JSON in request body is nested deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`;
