/**
 * An Avro object container file's records read with avsc, one block at a time: memory is
 * bounded by the largest block, never the file. Each record is written as one JSON object line
 * (columnar-values.ts), so every JSON rule of the project applies to it unchanged.
 *
 * avsc's own readings are replaced where they would lose what the file holds: a long is read
 * as a bigint (its digits, beyond 2^53 too), a string keeps its bad bytes as marks so its row is
 * rejected (avsc would replace them), timestamps are ISO texts in UTC with every digit, a decimal
 * its exact numeral, bytes and fixed values base64 text (avro-values.ts).
 */
import avro from 'avsc';
import { InputError } from '../../errors.js';
import type { RowGroup } from './row-group.js';
import { openAvroContainer, type AvroContainer } from './avro-container.js';
import { pushAvroLine } from './avro-values.js';
import { bigEndianInteger, decimalNumeral, escapeKey, ExactNumeral, float32Value, isoDate, isoTime, rowKeys, textOfBytes, type TimeUnit, unescapeKey } from './columnar-values.js';
import { withoutZone } from './local-times.js';

export { isAvro } from './avro-container.js';

const exactLong = avro.types.LongType.__with({
  fromBuffer: (buffer: Buffer) => buffer.readBigInt64LE(0),
  toBuffer: (value: bigint) => {
    const buffer = Buffer.alloc(8);
    buffer.writeBigInt64LE(BigInt(value));
    return buffer;
  },
  fromJSON: (value: number | string) => BigInt(value),
  toJSON: (value: bigint) => Number(value),
  isValid: (value: unknown) => typeof value === 'bigint',
  compare: (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0),
});

interface Tap {
  buf: Buffer;
  pos: number;
  readLong(): number;
  _invalidate(): void;
}

/** A string's bytes at the tap, as columnar-values.ts reads text: bytes that are not UTF-8 kept as marks. */
function readMarkedString(tap: Tap): string | undefined {
  const length = tap.readLong();
  if (length < 0) {
    tap._invalidate();
    return '';
  }
  const start = tap.pos;
  tap.pos += length;
  if (tap.pos > tap.buf.length) return undefined;
  return textOfBytes(tap.buf.subarray(start, tap.pos));
}

class MarkedStringType extends avro.types.StringType {
  _read(tap: Tap): string | undefined {
    return readMarkedString(tap);
  }
}

/** Maps whose keys are read as strings are, and set as own keys, escaped as columnar-values.ts writes them (avsc's `__proto__` key would be lost). */
class ExactMapType extends avro.types.MapType {
  _read(tap: Tap): Record<string, unknown> {
    const values = this.valuesType as unknown as { _read(tap: Tap): unknown };
    const out: Record<string, unknown> = {};
    for (let count = tap.readLong(); count !== 0; count = tap.readLong()) {
      if (count < 0) tap.readLong(); // a negative count is followed by the block's byte size
      for (let i = 0; i < Math.abs(count); i++) {
        const key = escapeKey(readMarkedString(tap) ?? '');
        Object.defineProperty(out, key, { value: values._read(tap), enumerable: true, writable: true, configurable: true });
      }
    }
    return out;
  }
}

/**
 * Set while a time type builds its underlying long, which is then read exactly: a count of
 * nanoseconds passes 2^53, where avsc's own long refuses the value ("potential precision loss").
 */
let buildingTimeLong = false;

/**
 * A time type: the count as ISO text with every digit (timestamp-*), or without its `Z` for the
 * local-timestamp-* types, whose wall-clock times have no zone: read in --timezone like any
 * time written without one, and never taken as UTC.
 */
function timestampType(unit: TimeUnit, local = false) {
  return class extends avro.types.LogicalType {
    constructor(schema: avro.Schema, options?: unknown) {
      buildingTimeLong = true;
      try {
        super(schema, options);
      } finally {
        buildingTimeLong = false;
      }
    }
    override _fromValue(value: bigint): string {
      const iso = isoTime(BigInt(value), unit);
      return local ? withoutZone(iso) : iso;
    }
    override _toValue(): never {
      throw new Error('not written');
    }
  };
}

class DateType extends avro.types.LogicalType {
  override _fromValue(days: number): string {
    return isoDate(days);
  }
  override _toValue(): never {
    throw new Error('not written');
  }
}

class DecimalType extends avro.types.LogicalType {
  readonly scale: number;
  constructor(schema: avro.Schema, options?: unknown) {
    super(schema, options);
    this.scale = Number((schema as { scale?: number }).scale ?? 0);
  }
  override _fromValue(bytes: Buffer): ExactNumeral {
    return new ExactNumeral(decimalNumeral(bigEndianInteger(bytes), this.scale));
  }
  override _toValue(): never {
    throw new Error('not written');
  }
}

/** Avro floats as their shortest float32 numeral (float32Value), not the widened double. */
class ShortFloatType extends avro.types.FloatType {
  _read(tap: Tap & { readFloat(): number }): unknown {
    return float32Value(tap.readFloat());
  }
}

interface ReadableType {
  _read(tap: Tap): unknown;
}

/**
 * A record with a field named `__proto__`, read field by field into own properties: avsc's
 * record constructor assigns `this.__proto__`, which replaces the record's prototype (its
 * methods, as text, would be staged in place of the value). Other records keep avsc's reader.
 */
class OwnFieldsRecordType extends avro.types.RecordType {
  _createReader(): (tap: Tap) => unknown {
    const fields = this.fields;
    return (tap) => {
      const out: Record<string, unknown> = {};
      for (const field of fields)
        Object.defineProperty(out, escapeKey(field.name), { value: (field.type as unknown as ReadableType)._read(tap), enumerable: true, writable: true, configurable: true });
      return out;
    };
  }
}

function hasProtoField(schema: unknown): boolean {
  const fields = (schema as { fields?: unknown }).fields;
  return Array.isArray(fields) && fields.some((field) => (field as { name?: unknown }).name === '__proto__');
}

/** The type records are read with: the file's schema, with the readings above. */
export function avroRecordType(schemaJson: string): avro.Type {
  return avro.Type.forSchema(
    JSON.parse(schemaJson) as avro.Schema,
    {
      registry: { long: exactLong },
      wrapUnions: 'auto',
      logicalTypes: {
        'timestamp-millis': timestampType('ms'),
        'timestamp-micros': timestampType('us'),
        'timestamp-nanos': timestampType('ns'),
        'local-timestamp-millis': timestampType('ms', true),
        'local-timestamp-micros': timestampType('us', true),
        'local-timestamp-nanos': timestampType('ns', true),
        date: DateType,
        decimal: DecimalType,
      },
      typeHook: (schema, options) => {
        if (buildingTimeLong && typeOf(schema) === 'long') return exactLong;
        if (schema === 'string' || typeOf(schema) === 'string') return new MarkedStringType();
        if (schema === 'float' || (typeOf(schema) === 'float' && (schema as { logicalType?: unknown }).logicalType === undefined)) return new ShortFloatType();
        if (typeOf(schema) === 'record' && hasProtoField(schema)) return new OwnFieldsRecordType(schema as avro.schema.RecordType, options);
        return typeOf(schema) === 'map' ? new ExactMapType(schema as avro.schema.MapType, options) : undefined;
      },
    } as Partial<avro.ForSchemaOptions>,
  );
}

function typeOf(schema: unknown): unknown {
  return typeof schema === 'object' && schema !== null ? (schema as { type?: unknown }).type : undefined;
}

/** `count` records decoded from a block's bytes. */
export function decodeRecords(type: avro.Type, data: Buffer, count: number): unknown[] {
  const records: unknown[] = [];
  let pos = 0;
  for (let i = 0; i < count; i++) {
    const { value, offset } = type.decode(data, pos);
    if (offset < 0) throw new Error(`record ${i + 1} of ${count} runs past the block's end`);
    records.push(value);
    pos = offset;
  }
  if (pos !== data.length) throw new Error(`${data.length - pos} bytes are left after its ${count} records`);
  return records;
}

/** An open Avro file: its columns (the top record's fields), its blocks' sizes, and reads of one block. */
export interface AvroFile {
  columns: string[];
  /** Records of each block, in order. */
  blockRecords: number[];
  /** The records of one block, decoded, and each pushed as a JSON object line when asked. */
  block(index: number): Promise<RowGroup>;
  close(): Promise<void>;
}

/** Opens an Avro file and finds its blocks; InputError when it is not one that can be read. */
export async function openAvro(path: string, displayName: string, sizeBytes: number): Promise<AvroFile> {
  return avroFileOf(await openAvroContainer(path, displayName, sizeBytes), displayName);
}

/** The records of a container opened from wherever its bytes are (a file, a bucket object); InputError when its schema cannot be read. */
export function avroFileOf(container: AvroContainer, displayName: string): AvroFile {
  let type: avro.Type;
  try {
    type = avroRecordType(container.schemaJson);
  } catch (error) {
    throw new InputError(`${displayName}: its Avro schema cannot be read (${(error as Error).message})`);
  }
  if (!avro.Type.isType(type, 'record')) throw new InputError(`${displayName}: its Avro schema is not a record, so it has no columns`);
  const columns = (type as avro.types.RecordType).fields.map((field) => escapeKey(field.name));
  const keys = rowKeys(columns);
  return {
    columns: columns.map(unescapeKey),
    blockRecords: container.blocks.map((block) => block.records),
    async block(index) {
      const data = await container.blockData(index);
      let records: unknown[];
      try {
        records = decodeRecords(type, data, container.blocks[index]!.records);
      } catch (error) {
        throw new InputError(`${displayName}: block ${index + 1} cannot be read (${(error as Error).message})`);
      }
      return {
        rows: records.length,
        pushLine(row, parts) {
          const record = records[row] as Record<string, unknown>;
          // Each record is written once: it is released as soon as its line is made.
          records[row] = undefined;
          pushAvroLine(parts, columns, keys, record);
        },
      };
    },
    close: () => container.close(),
  };
}
