#!/usr/bin/env node
// Writes a synthetic CSV source for benchmarks: realistic columns and a JSON properties column.
// Usage: node bench/generate-source.mjs <out.csv> [events=1000000]
import { createWriteStream } from 'node:fs';

const [out, countArg] = process.argv.slice(2);
if (!out) {
  console.error('usage: node bench/generate-source.mjs <out.csv> [events]');
  process.exit(2);
}
const total = Number(countArg ?? 1_000_000);
let seed = 42;
const random = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const events = ['pageview', 'button_clicked', 'signed_up', 'purchase', 'search', 'page_view'];
const paths = ['/', '/pricing', '/docs/getting-started', '/blog/launch', '/app/dashboard', '/app/settings'];
const browsers = ['Chrome', 'Firefox', 'Safari', 'Edge'];
const start = Date.UTC(2024, 0, 1);
const spanMs = 300 * 24 * 3600 * 1000;

const stream = createWriteStream(out);
stream.write('event,distinct_id,timestamp,$current_url,$browser,plan,properties\n');
let i = 0;
function writeSome() {
  let ok = true;
  while (i < total && ok) {
    const ts = new Date(start + Math.floor((i / total) * spanMs) + Math.floor(random() * 1000)).toISOString();
    const user = `user_${Math.floor(random() * 50_000)}`;
    const props = JSON.stringify({ session_id: `s${Math.floor(random() * 1e9)}`, $screen_width: 1280 + Math.floor(random() * 640), utm_source: random() < 0.3 ? 'newsletter' : 'google' });
    const row = `${events[Math.floor(random() * events.length)]},${user},${ts},https://example.com${paths[Math.floor(random() * paths.length)]},${browsers[Math.floor(random() * 4)]},${random() < 0.2 ? 'pro' : 'free'},"${props.replaceAll('"', '""')}"\n`;
    ok = stream.write(row);
    i++;
  }
  if (i < total) stream.once('drain', writeSome);
  else stream.end();
}
writeSome();
