/** A UUID in either case (PostgreSQL's uuid type reads both): ids in paths and in cursors. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A UUID v4 (version and variant digits checked), in either case: macOS `uuidgen` prints uppercase.
 * Spelled without the `i` flag because its source is also a `pattern` in the OpenAPI document.
 */
export const UUID_V4 = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/;
