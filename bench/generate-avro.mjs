// The PostHog batch-export shape as an Avro object container file (deflate codec), for `--from
// avro`: the columns and values of bench/generate-parquet.mjs, the timestamps as longs of
// microseconds (logical type timestamp-micros). Written by the project's own Avro writer
// (test/helpers/avro-writer.ts, written from the specification), not by avsc, the reader under
// test; one block per about 64 KB of records, as Avro's Java writer does. Every row stages.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { encode, zigzag } from '../test/helpers/avro-writer.ts';

const TIME = { type: 'long', logicalType: 'timestamp-micros' };
const SCHEMA = {
  type: 'record',
  name: 'event',
  fields: [
    { name: 'uuid', type: 'string' },
    { name: 'event', type: 'string' },
    { name: 'properties', type: 'string' },
    { name: 'distinct_id', type: 'string' },
    { name: 'timestamp', type: TIME },
    { name: 'created_at', type: TIME },
    { name: '_inserted_at', type: TIME },
    { name: 'elements_chain', type: 'string' },
    { name: 'person_id', type: 'string' },
    { name: 'person_properties', type: 'string' },
  ],
};
const BLOCK_BYTES = 64_000;
const SYNC = Buffer.from('bench-avro-sync!');
const EVENTS = ['$pageview', '$autocapture', 'signed_up', 'purchase', 'search'];
const BROWSERS = ['Chrome', 'Firefox', 'Safari'];
const START_US = 1_704_067_200_000_000n; // 2024-01-01T00:00:00Z
const INSERTED_US = 1_730_419_200_000_000n; // 2024-11-01T00:00:00Z

/** The uuid DuckDB's recipe makes of md5(seed) (generate-parquet.mjs). @param {string} seed */
function uuid(seed) {
  const h = createHash('md5').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Row `i` of `total`. @param {number} i @param {number} total */
function record(i, total) {
  const properties = `{"$current_url": "https://example.com/docs/${i % 997}?utm_source=news", "$browser": "${BROWSERS[i % 3]}", "$screen_width": ${1280 + (i % 640)}, "plan": {"tier": "pro", "seats": ${i % 50}, "tags": ["a", "é", "🚀"]}, "big": ${9007199254740993n + BigInt(i % 7)}, "$session_id": "${uuid(`s${Math.floor(i / 40)}`)}"}`;
  return {
    uuid: uuid(`e${i}`),
    event: EVENTS[i % 5],
    properties,
    distinct_id: `user_${i % 50000}`,
    timestamp: START_US + (BigInt(i) * 25_920_000_000n) / BigInt(total),
    created_at: INSERTED_US,
    _inserted_at: INSERTED_US,
    elements_chain: i % 5 === 1 ? 'button.btn.primary:nth-child="2"nth-of-type="1"text="Sign up";div.hero:nth-child="1"' : '',
    person_id: uuid(`p${i % 50000}`),
    person_properties: `{"email": "user${i % 50000}@example.com"}`,
  };
}

/** Writes `total` rows to `out`; returns what staging must make of them. @param {string} out @param {number} total */
export async function generateAvro(out, total) {
  const stream = createWriteStream(out);
  const write = async (/** @type {Buffer} */ bytes) => {
    if (!stream.write(bytes)) await once(stream, 'drain');
  };
  const text = (/** @type {string} */ s) => Buffer.concat([zigzag(Buffer.byteLength(s)), Buffer.from(s)]);
  await write(Buffer.concat([Buffer.from('Obj\x01', 'latin1'), zigzag(2), text('avro.schema'), text(JSON.stringify(SCHEMA)), text('avro.codec'), text('deflate'), zigzag(0), SYNC]));
  /** @type {Buffer[]} */
  let block = [];
  let bytes = 0;
  const flush = async () => {
    const data = deflateRawSync(Buffer.concat(block));
    await write(Buffer.concat([zigzag(block.length), zigzag(data.length), data, SYNC]));
    block = [];
    bytes = 0;
  };
  for (let i = 0; i < total; i++) {
    const encoded = encode(SCHEMA, record(i, total));
    block.push(encoded);
    bytes += encoded.length;
    if (bytes >= BLOCK_BYTES) await flush();
  }
  if (block.length > 0) await flush();
  stream.end();
  await once(stream, 'close');
  return { staged: total, rejected: 0, skipped: 0, duplicates: 0 };
}
