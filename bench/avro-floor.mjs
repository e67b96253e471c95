#!/usr/bin/env node
// The floor for Avro: a bare pass of avsc over the file (its block decoder, streaming, every
// record made an object), as a user's own script would read it.
// Usage: node bench/avro-floor.mjs <file.avro>; prints {"rows": N}.
import avro from 'avsc';

let rows = 0;
const decoder = avro.createFileDecoder(process.argv[2]);
decoder.on('data', () => rows++);
await new Promise((done, fail) => decoder.once('end', done).once('error', fail));
console.log(JSON.stringify({ rows }));
