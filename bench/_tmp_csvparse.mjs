import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';
const t0 = performance.now();
let n = 0;
const p = createReadStream(process.argv[2]).pipe(parse({ columns: true }));
for await (const r of p) n++;
const s = (performance.now() - t0) / 1000;
console.log(n, s.toFixed(2), Math.round(n / s));
