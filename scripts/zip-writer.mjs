// A minimal zip writer for fixtures and tests: stored or deflated entries, fixed timestamps,
// UTF-8 names, so the same entries always give the same bytes. Not used by the tool itself.
import { crc32, deflateRawSync } from 'node:zlib';

const DOS_TIME = 0; // 00:00:00
const DOS_DATE = ((2025 - 1980) << 9) | (9 << 5) | 1; // 2025-09-01

/** The fields local and central headers share, in the same order, from `at`. */
function writeShared(header, at, { method, crc, compressedSize, size, nameLength }) {
  header.writeUInt16LE(20, at); // version needed to extract: 2.0
  header.writeUInt16LE(0x0800, at + 2); // UTF-8 names
  header.writeUInt16LE(method, at + 4);
  header.writeUInt16LE(DOS_TIME, at + 6);
  header.writeUInt16LE(DOS_DATE, at + 8);
  header.writeUInt32LE(crc, at + 10);
  header.writeUInt32LE(compressedSize, at + 14);
  header.writeUInt32LE(size, at + 18);
  header.writeUInt16LE(nameLength, at + 22);
}

/**
 * The local header (name included, to write before the entry's body) and the central directory
 * record of one entry whose local header starts at `offset`: for writers that stream entries.
 * @param {{ name: string, data: Buffer, body: Buffer, method: 'store' | 'deflate', offset: number }} entry
 * @returns {{ local: Buffer, central: Buffer }}
 */
export function zipEntryHeaders(entry) {
  const name = Buffer.from(entry.name, 'utf8');
  const shared = { method: entry.method === 'deflate' ? 8 : 0, crc: crc32(entry.data) >>> 0, compressedSize: entry.body.length, size: entry.data.length, nameLength: name.length };
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  writeShared(local, 4, shared);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(0x031e, 4); // made by: Unix, spec 3.0
  writeShared(central, 6, shared);
  central.writeUInt32LE((0o100644 << 16) >>> 0, 38); // a regular file, rw-r--r--
  central.writeUInt32LE(entry.offset, 42);
  return { local: Buffer.concat([local, name]), central: Buffer.concat([central, name]) };
}

/**
 * The central directory and its end record, written after the last entry (which ended at `offset`).
 * @param {readonly Buffer[]} centrals
 * @param {number} offset
 */
export function zipDirectory(centrals, offset) {
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(centrals.length, 8);
  end.writeUInt16LE(centrals.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([directory, end]);
}

/**
 * @param {Array<{ name: string, data: Buffer, method?: 'store' | 'deflate' }>} entries
 * @returns {Buffer}
 */
export function makeZip(entries) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const entry of entries) {
    const method = entry.method === 'deflate' ? 'deflate' : 'store';
    const body = method === 'deflate' ? deflateRawSync(entry.data, { level: 9 }) : entry.data;
    const { local, central } = zipEntryHeaders({ name: entry.name, data: entry.data, body, method, offset });
    locals.push(local, body);
    centrals.push(central);
    offset += local.length + body.length;
  }
  return Buffer.concat([...locals, zipDirectory(centrals, offset)]);
}
