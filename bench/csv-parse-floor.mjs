#!/usr/bin/env node
// The floor for export-source: csv-parse reading the same file with `columns: true`, counting
// rows, nothing else. Prints one JSON line: {"rows": N}.
// Usage: node bench/csv-parse-floor.mjs <file.csv>
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';

const file = process.argv[2];
if (!file) {
  console.error('usage: node bench/csv-parse-floor.mjs <file.csv>');
  process.exit(2);
}
let rows = 0;
const parser = parse({ columns: true });
parser.on('data', () => rows++);
await pipeline(createReadStream(file), parser);
console.log(JSON.stringify({ rows }));
