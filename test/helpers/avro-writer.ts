/**
 * An Avro object container writer written from the Avro specification, independent of avsc (the
 * reader under test): header (magic `Obj\x01`, metadata map, 16-byte sync marker), then blocks
 * of records, each block's count and byte size, its bytes (null, deflate or snappy codec) and
 * the sync marker. Encodes the types the tests use: null, boolean, int, long (number or bigint),
 * double, bytes, string, fixed, enum, record, array, map and unions (a value of a union is
 * `{ branch: index, value }`, or null for a null branch).
 */
import { writeFileSync } from 'node:fs';
import { crc32, deflateRawSync } from 'node:zlib';
import { snappyCompress } from 'hysnappy';

export type AvroSchema = string | { type: string; [key: string]: unknown } | AvroSchema[];
export type AvroCodec = 'null' | 'deflate' | 'snappy';

export function zigzag(value: bigint | number): Buffer {
  let n = BigInt(value);
  n = n >= 0n ? n << 1n : (-n << 1n) - 1n;
  const bytes: number[] = [];
  do {
    let byte = Number(n & 0x7fn);
    n >>= 7n;
    if (n > 0n) byte |= 0x80;
    bytes.push(byte);
  } while (n > 0n);
  return Buffer.from(bytes);
}

function lengthPrefixed(bytes: Buffer): Buffer {
  return Buffer.concat([zigzag(bytes.length), bytes]);
}

/** The binary encoding of `value` as `schema` (named types resolved through `named`). */
export function encode(schema: AvroSchema, value: unknown, named = new Map<string, AvroSchema>()): Buffer {
  if (Array.isArray(schema)) {
    if (value === null) return zigzag(schema.findIndex((s) => s === 'null'));
    const { branch, value: inner } = value as { branch: number; value: unknown };
    return Buffer.concat([zigzag(branch), encode(schema[branch]!, inner, named)]);
  }
  if (typeof schema === 'string') {
    if (named.has(schema)) return encode(named.get(schema)!, value, named);
    return encode({ type: schema }, value, named);
  }
  const s = schema as Record<string, unknown>;
  if (typeof s.name === 'string') named.set(s.name, schema);
  switch (s.type) {
    case 'null':
      return Buffer.alloc(0);
    case 'boolean':
      return Buffer.from([value ? 1 : 0]);
    case 'int':
    case 'long':
      return zigzag(value as number | bigint);
    case 'double': {
      const out = Buffer.alloc(8);
      out.writeDoubleLE(value as number);
      return out;
    }
    case 'bytes':
      return lengthPrefixed(Buffer.from(value as Uint8Array));
    case 'string':
      return lengthPrefixed(typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value as Uint8Array));
    case 'fixed':
      return Buffer.from(value as Uint8Array);
    case 'enum':
      return zigzag((s.symbols as string[]).indexOf(value as string));
    case 'record':
      return Buffer.concat((s.fields as Array<{ name: string; type: AvroSchema }>).map((f) => encode(f.type, (value as Record<string, unknown>)[f.name], named)));
    case 'array': {
      const items = value as unknown[];
      return Buffer.concat([...(items.length > 0 ? [zigzag(items.length), ...items.map((item) => encode(s.items as AvroSchema, item, named))] : []), zigzag(0)]);
    }
    case 'map': {
      const entries = Object.entries(value as Record<string, unknown>);
      const parts = entries.flatMap(([key, item]) => [lengthPrefixed(Buffer.from(key, 'utf8')), encode(s.values as AvroSchema, item, named)]);
      return Buffer.concat([...(entries.length > 0 ? [zigzag(entries.length), ...parts] : []), zigzag(0)]);
    }
    default:
      throw new Error(`the test writer does not encode ${String(s.type)}`);
  }
}

function compress(codec: AvroCodec, data: Buffer): Buffer {
  if (codec === 'deflate') return deflateRawSync(data);
  if (codec === 'snappy') {
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(data));
    return Buffer.concat([Buffer.from(snappyCompress(data)), crc]);
  }
  return data;
}

/** An Avro container file's bytes: `records` in blocks of `blockRecords`. */
export function avroContainer(schema: AvroSchema, records: unknown[], options: { codec?: AvroCodec; blockRecords?: number } = {}): Buffer {
  const codec = options.codec ?? 'null';
  const perBlock = options.blockRecords ?? 100;
  const sync = Buffer.from('0123456789abcdef');
  const metadata: Array<[string, string]> = [
    ['avro.schema', JSON.stringify(schema)],
    ['avro.codec', codec],
  ];
  const parts: Buffer[] = [Buffer.from('Obj\x01', 'latin1'), zigzag(metadata.length)];
  for (const [key, text] of metadata) parts.push(lengthPrefixed(Buffer.from(key)), lengthPrefixed(Buffer.from(text)));
  parts.push(zigzag(0), sync);
  for (let start = 0; start < records.length; start += perBlock) {
    const block = records.slice(start, start + perBlock);
    const data = compress(codec, Buffer.concat(block.map((record) => encode(schema, record))));
    parts.push(zigzag(block.length), zigzag(data.length), data, sync);
  }
  return Buffer.concat(parts);
}

export function writeAvro(file: string, schema: AvroSchema, records: unknown[], options: { codec?: AvroCodec; blockRecords?: number } = {}): void {
  writeFileSync(file, avroContainer(schema, records, options));
}
