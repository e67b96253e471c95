#!/usr/bin/env node
// The floor for Parquet: a bare pass of hyparquet (with its compressors) over the file, one row
// group at a time, every row made an object, as a user's own script would read it.
// Usage: node bench/parquet-floor.mjs <file.parquet>; prints {"rows": N}.
import { asyncBufferFromFile, parquetMetadataAsync, parquetRead } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

const file = await asyncBufferFromFile(process.argv[2]);
const metadata = await parquetMetadataAsync(file);
let rows = 0;
let start = 0;
for (const group of metadata.row_groups) {
  const end = start + Number(group.num_rows);
  await parquetRead({ file, metadata, compressors, rowFormat: 'object', rowStart: start, rowEnd: end, onComplete: (read) => (rows += read.length) });
  start = end;
}
console.log(JSON.stringify({ rows }));
