/** Types for zip-writer.mjs, so tests written in TypeScript can build archives. */
export function makeZip(entries: Array<{ name: string; data: Buffer; method?: 'store' | 'deflate' }>): Buffer;
export function zipEntryHeaders(entry: { name: string; data: Buffer; body: Buffer; method: 'store' | 'deflate'; offset: number }): { local: Buffer; central: Buffer };
export function zipDirectory(centrals: readonly Buffer[], offset: number): Buffer;
