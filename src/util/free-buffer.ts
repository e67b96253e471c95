/**
 * Frees a buffer's memory now rather than at a later collection, by detaching it. A buffer
 * that lives a few scavenges reaches V8's old generation, and its memory (outside the heap)
 * then waits for a full collection: meanwhile it counts in the process's resident memory. Only
 * a large buffer mostly its own is freed (never Node's shared pool, whose buffers are under
 * 4 KiB), and only one nothing reads any more: every view of it becomes empty.
 */
export function freeBuffer(bytes: Uint8Array | undefined): void {
  // A decompressor may return a view a few bytes into a buffer of its own (fzstd does).
  if (bytes === undefined || bytes.byteLength < FREED_FROM_BYTES || bytes.byteLength < bytes.buffer.byteLength / 2) return;
  try {
    (bytes.buffer as ArrayBuffer & { transfer(length: number): ArrayBuffer }).transfer(0);
  } catch {
    // A buffer Node made not detachable (a file read whole, say) is left to the collector.
  }
}

/** Node's shared pool hands out buffers under 4 KiB from slabs of 8 KiB. */
const FREED_FROM_BYTES = 8 * 1024;
