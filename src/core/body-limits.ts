/** Limits of a request's JSON body (http/plugins/json-body.ts), here so that the reference (docs/) states them too. */

/** Bodies up to this many characters are parsed on the event loop: ~20k values at most, a few ms. */
export const SYNC_PARSE_CHARS = 64 * 1024;
/** Values (objects, arrays, strings, numbers…) a larger body may hold (write_files' 1,000 files are ~4,000). */
export const MAX_JSON_VALUES = 100_000;
