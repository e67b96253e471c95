/**
 * A worker thread that decodes one columnar file into its rows' text (row-text.ts) and hands it
 * to the thread that stages it as UTF-8 bytes, a batch per request, moved (not copied): that
 * thread cuts pieces from the bytes as from a JSON-lines file and never holds the text. Decoding a Parquet row group is
 * the heaviest step of reading one (decompressing, decoding every column, writing each row as
 * a JSON line), and on the main thread it took turns with writing the staging file; here the
 * two run side by side, and the row group's decoded columns live in this thread's heap.
 */
import { serveRequests } from '../../util/worker-bridge.js';
import { openRowGroups, rowTextParts, TEXT_CHUNK_CHARS, utf8OfParts, type ColumnarKind } from './row-text.js';

/** A file to read from a row on; then batches of its text until null. */
export type RowTextRequest = { start: { kind: ColumnarKind; path: string; displayName: string; sizeBytes: number; fromRow: number } } | { next: true };

/** Text answered per request: a few chunks, so the request's round trip is a small share of it. */
const BATCH_CHARS = 16 * TEXT_CHUNK_CHARS;

let text: AsyncIterator<string[]> | undefined;
let close: (() => Promise<void>) | undefined;

serveRequests<RowTextRequest, Buffer | null>(
  async (request) => {
    if ('start' in request) {
      const { kind, path, displayName, sizeBytes, fromRow } = request.start;
      const groups = await openRowGroups(kind, path, displayName, sizeBytes);
      close = () => groups.close();
      text = rowTextParts(groups, fromRow)[Symbol.asyncIterator]();
      return null;
    }
    const batch: Buffer[] = [];
    let chars = 0;
    while (text !== undefined && chars < BATCH_CHARS) {
      const next = await text.next();
      if (next.done === true) {
        text = undefined;
        await close?.();
        break;
      }
      chars += utf8OfParts(next.value, batch);
    }
    return batch.length === 0 ? null : ownBuffer(batch);
  },
  (bytes) => (bytes === null ? [] : [bytes.buffer as ArrayBuffer]),
);

/** One buffer of its own (moved to the staging thread, so never a slice of Node's shared pool). */
function ownBuffer(buffers: readonly Buffer[]): Buffer {
  if (buffers.length === 1) return buffers[0]!;
  const out = Buffer.allocUnsafeSlow(buffers.reduce((sum, b) => sum + b.length, 0));
  let at = 0;
  for (const b of buffers) at += b.copy(out, at);
  return out;
}
