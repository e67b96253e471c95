/** Types for zip-writer.mjs, so tests written in TypeScript can build archives. */
export function makeZip(entries: Array<{ name: string; data: Buffer; method?: 'store' | 'deflate' }>): Buffer;
