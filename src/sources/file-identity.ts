/**
 * What tells a file on disk unchanged since it was staged, without reading it through: its
 * size, modification time and inode, and a hash of its first and last MiB (a file rewritten in
 * place within the clock's resolution, or copied over with its time kept, changes those). A
 * bucket object's is its endpoint, size and ETag, known from the listing alone.
 */
import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';

/** Bytes hashed at each end of a file. */
const EDGE_BYTES = 1024 * 1024;

async function edgesHash(path: string, sizeBytes: number): Promise<string> {
  const hash = createHash('sha256');
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(Math.min(EDGE_BYTES, sizeBytes));
    await handle.read(head, 0, head.length, 0);
    hash.update(head);
    const tailStart = Math.max(head.length, sizeBytes - EDGE_BYTES);
    const tail = Buffer.alloc(sizeBytes - tailStart);
    await handle.read(tail, 0, tail.length, tailStart);
    hash.update(tail);
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}

/** A regular file's identity as recorded with its reads; undefined for anything else (a pipe, a FIFO, standard input). */
export async function fileIdentity(path: string): Promise<string | undefined> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return undefined;
    const edges = await edgesHash(path, info.size);
    return JSON.stringify({ file: { sizeBytes: info.size, mtimeMs: info.mtimeMs, inode: info.ino, edges } });
  } catch {
    return undefined;
  }
}

/** A bucket object's identity as recorded with its reads: where it is stored and which content it has. */
export function objectIdentity(object: { endpoint: string; sizeBytes: number; etag: string }): string {
  return JSON.stringify({ object: { endpoint: object.endpoint, sizeBytes: object.sizeBytes, etag: object.etag } });
}
