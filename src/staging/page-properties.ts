/**
 * Import's pages and property blocks: the page query leaves the properties of rows packed in
 * blocks out of their JSON (see STAGED_JSON_COLUMN), and they are copied in here from the
 * unpacked blocks, byte for byte, never decoded into strings. Read in SQL through a function,
 * they cost the page read twice its time (two calls and a subquery per row).
 */
import { PAGE_META_BYTES, PAGE_META_NUMBERS } from './event-json-sql.js';
import type { Database, Statement } from '../sqlite/database.js';
import { refBlockId, refIndex, UnpackedBlock } from './property-block-codec.js';
import type { PropertyBlockCache } from './property-blocks.js';

/** Rows of property blocks by reference, through the connection's cache; run between statements, never inside one. */
export class PropertyBlockReader {
  private readonly select: Statement;

  constructor(
    db: Database,
    private readonly cache: PropertyBlockCache,
  ) {
    this.select = db.prepare('SELECT data FROM property_blocks WHERE id = ?').pluck();
  }

  row(ref: Buffer): Uint8Array {
    const id = refBlockId(ref);
    if (id === undefined) throw new Error(`not a reference to a property block: ${ref.toString('hex')}`);
    let block = this.cache.get(id);
    if (block === undefined) {
      const data = this.select.get(id) as Uint8Array | undefined;
      if (data === undefined) throw new Error(`staged properties refer to block ${id}, which is not in the staging file`);
      block = UnpackedBlock.fromStored(data);
      this.cache.put(id, block);
    }
    const bytes = block.row(refIndex(ref));
    if (bytes === undefined) throw new Error(`staged properties refer to row ${refIndex(ref)} of block ${id}, which it does not have`);
    return bytes;
  }
}

/**
 * The page's JSON with each block row's properties put before its closing brace; `numbers`
 * (PAGE_META_NUMBERS per event) get the events' new byte lengths. `refs`: each event's reference
 * in hex, '' for an event whose properties are in its JSON already.
 */
export function spliceBlockRows(json: Buffer, numbers: number[], refs: string, blocks: PropertyBlockReader): Buffer {
  if (refs.length < numbers.length / PAGE_META_NUMBERS - 1 + 18) return json;
  const hexes = refs.split(',');
  const parts: Uint8Array[] = [];
  let bytes = 0;
  for (let i = 0, start = 0; i < numbers.length; i += PAGE_META_NUMBERS) {
    const end = start + numbers[i + PAGE_META_BYTES]!;
    const hex = hexes[i / PAGE_META_NUMBERS]!;
    if (hex === '') parts.push(json.subarray(start, end));
    else {
      const properties = blocks.row(Buffer.from(hex, 'hex'));
      parts.push(json.subarray(start, end - 1), properties, CLOSE);
      numbers[i + PAGE_META_BYTES]! += properties.length;
    }
    bytes += numbers[i + PAGE_META_BYTES]!;
    start = end;
  }
  return Buffer.concat(parts, bytes);
}

const CLOSE = Buffer.from('}');
