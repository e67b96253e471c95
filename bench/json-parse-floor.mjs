#!/usr/bin/env node
// The floor for a JSON-lines export: the bare pass a user would write. Reads the file with
// readline (gunzipping a gzipped file, and each entry of a zip archive, as Amplitude's export
// is a zip of gzipped files) and JSON.parses every line that is not blank, nothing else.
// Prints one JSON line: {"rows": N, "unparsed": M} (M: lines JSON.parse refused).
// Usage: node bench/json-parse-floor.mjs <file.jsonl | file.jsonl.gz | file.zip>
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import yauzl from 'yauzl';

const file = process.argv[2];
if (!file) {
  console.error('usage: node bench/json-parse-floor.mjs <file>');
  process.exit(2);
}
let rows = 0;
let unparsed = 0;

/** @param {import('node:stream').Readable} bytes @param {string} name */
async function parseLines(bytes, name) {
  const stream = name.endsWith('.gz') ? bytes.pipe(createGunzip()) : bytes;
  for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
    if (line.trim() === '') continue;
    rows++;
    try {
      JSON.parse(line);
    } catch {
      unparsed++;
    }
  }
}

async function isZip() {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(4);
    await handle.read(head, 0, 4, 0);
    return head.readUInt32LE(0) === 0x04034b50;
  } finally {
    await handle.close();
  }
}

if (await isZip()) {
  const zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false });
  const entries = [];
  for await (const entry of zip.eachEntry()) if (!entry.fileName.endsWith('/')) entries.push(entry);
  for (const entry of entries) await parseLines(await zip.openReadStreamPromise(entry), entry.fileName);
  zip.close();
} else {
  await parseLines(createReadStream(file), file);
}
console.log(JSON.stringify({ rows, unparsed }));
