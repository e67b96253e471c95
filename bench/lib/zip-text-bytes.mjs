// The bytes of text a zip source holds: each entry inflated (stored or deflated), and a
// gzipped entry (Amplitude's export: a zip of hourly .json.gz files) gunzipped too. The staging
// file is compared with this as well as with the zip, since its target is set against the
// JSON an export holds, not against how the export was compressed for download.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { gunzipSync, inflateRawSync } from 'node:zlib';

/** @param {number} fd @param {number} position @param {number} length */
function readAt(fd, position, length) {
  const buffer = Buffer.alloc(length);
  const got = readSync(fd, buffer, 0, length, position);
  return buffer.subarray(0, got);
}

/** @param {string} path a zip file without zip64 records (under 4 GiB, as the generator writes) */
export function zipTextBytes(path) {
  const size = statSync(path).size;
  const fd = openSync(path, 'r');
  try {
    const tail = readAt(fd, Math.max(0, size - 65_557), Math.min(size, 65_557));
    const end = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    if (end < 0) throw new Error(`${path}: no end of central directory`);
    const entries = tail.readUInt16LE(end + 10);
    const directory = readAt(fd, tail.readUInt32LE(end + 16), tail.readUInt32LE(end + 12));
    let total = 0;
    for (let i = 0, at = 0; i < entries; i++) {
      const method = directory.readUInt16LE(at + 10);
      const compressed = directory.readUInt32LE(at + 20);
      const nameLength = directory.readUInt16LE(at + 28);
      const name = directory.toString('utf8', at + 46, at + 46 + nameLength);
      const local = directory.readUInt32LE(at + 42);
      at += 46 + nameLength + directory.readUInt16LE(at + 30) + directory.readUInt16LE(at + 32);
      const header = readAt(fd, local, 30);
      const raw = readAt(fd, local + 30 + header.readUInt16LE(26) + header.readUInt16LE(28), compressed);
      const data = method === 8 ? inflateRawSync(raw) : raw;
      total += name.endsWith('.gz') ? gunzipSync(data).length : data.length;
    }
    return total;
  } finally {
    closeSync(fd);
  }
}
