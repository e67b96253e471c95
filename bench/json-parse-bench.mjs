#!/usr/bin/env node
// How fast JSON lines are read: bare JSON.parse, the reader's fast path (parseJson), the careful
// parser alone, and what keeping source key order would cost. Lines are Mixpanel-shaped, made in
// memory with a fixed seed (about 2% carry integers beyond 2^53). Not part of `npm run bench`.
// The same events as one pretty-printed JSON array are then split by JsonArraySplitter.
// Usage: npm run build && node bench/json-parse-bench.mjs [lines=200000] [rounds=5]
import { parseJsonCarefully } from '../dist/sources/json/careful-json-parser.js';
import { hasSurrogateEscape, mayDiffer } from '../dist/sources/json/json-hazards.js';
import { parseJson } from '../dist/sources/json/read-json.js';
import { stringifyJson } from '../dist/sources/json/json-writer.js';
import { JsonArraySplitter } from '../dist/sources/json/json-array-splitter.js';
import { makeRandom } from './lib/source-rows.mjs';

const count = Number(process.argv[2] ?? 200_000);
const rounds = Number(process.argv[3] ?? 5);

const { random, pick, int, hex } = makeRandom(20240601);

const events = ['Viewed Page', 'Clicked Button', 'Signed Up', 'Purchase', 'Search', '$mp_web_page_view'];
const cities = ['São Paulo', 'Berlin', 'Tōkyō', 'New York', 'Zürich', 'Kraków', 'Москва'];
const titles = ['Produto — Edição Especial 😀', 'Pricing', 'Docs: getting started', '価格 | Example', 'Blog » Launch 🚀'];
const paths = ['/products/category/item', '/pricing', '/docs/getting-started/install', '/blog/2024/launch', '/app/dashboard/settings'];

function line() {
  const time = 1_690_000_000 + int(30_000_000);
  const properties = {
    time,
    distinct_id: `user_${int(500_000)}`,
    $insert_id: hex(16),
    $browser: pick(['Chrome', 'Firefox', 'Safari', 'Edge']),
    $browser_version: 100 + int(30),
    $city: pick(cities),
    $current_url: `https://shop.example.com${pick(paths)}-${int(99_999)}?utm_source=newsletter&utm_medium=email&utm_campaign=spring_sale_${int(100)}&ref=homepage_banner_${hex(6)}`,
    $device_id: `${hex(11)}-${hex(14)}-${hex(8)}-${hex(6)}-${hex(11)}`,
    $initial_referrer: '$direct',
    $lib_version: '2.47.0',
    $mp_api_endpoint: 'api.mixpanel.com',
    $mp_api_timestamp_ms: time * 1000 + int(1000),
    $os: pick(['Mac OS X', 'Windows', 'iOS', 'Android', 'Linux']),
    $region: pick(cities),
    $screen_height: 700 + int(500),
    $screen_width: 1200 + int(1400),
    mp_country_code: pick(['BR', 'DE', 'JP', 'US', 'CH', 'PL']),
    mp_lib: 'web',
    mp_processing_time_ms: time * 1000 + int(5000),
    title: pick(titles),
    cart: { items: Array.from({ length: 1 + int(3) }, (_, k) => ({ sku: `SKU-${k}-${int(1000)}`, price: int(10_000) / 100, qty: 1 + int(4) })), currency: 'EUR' },
    tags: ['new', pick(['promo', 'organic', 'paid'])],
    ab: { exp_checkout: pick(['control', 'test']), exp_nav: { variant: pick(['A', 'B']), weight: 0.5 } },
  };
  let text = JSON.stringify({ event: pick(events), properties });
  // About 2% of lines carry an order id beyond 2^53 (a 19-digit integer within 64 bits).
  if (random() < 0.02) text = text.slice(0, -2) + `,"order_id":${9_007_199_254_740_993n + BigInt(int(1e9)) * 1000n}}}`;
  return text;
}

const lines = Array.from({ length: count }, line);
const bytes = lines.reduce((sum, l) => sum + Buffer.byteLength(l), 0);

function toMaps(value) {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(toMaps);
  const map = new Map();
  for (const key of Object.keys(value)) map.set(key, toMaps(value[key]));
  return map;
}

const passes = {
  'JSON.parse (bare)': (l) => JSON.parse(l),
  'JSON.parse then the hazard walk': (l) => mayDiffer(JSON.parse(l), 128, hasSurrogateEscape(l)),
  'parseJson (fast path + careful for hazards)': (l) => parseJson(l),
  'parseJson, text known well-formed': (l) => parseJson(l, { wellFormedText: true }),
  'careful parser on every line': (l) => parseJsonCarefully(l),
  'JSON.parse with an identity reviver': (l) => JSON.parse(l, (_k, v) => v),
  'JSON.parse then Map tree (source order)': (l) => toMaps(JSON.parse(l)),
  'parseJson then stringifyJson': (l) => stringifyJson(parseJson(l).value),
  'JSON.parse then JSON.stringify': (l) => JSON.stringify(JSON.parse(l)),
};

function time(fn) {
  let sink = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < lines.length; i++) if (fn(lines[i]) !== undefined) sink++;
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (sink < 0) console.log(sink);
  return seconds;
}

const careful = lines.filter((l) => mayDiffer(JSON.parse(l), 128, hasSurrogateEscape(l))).length;
console.log(`${count} lines, ${(bytes / count).toFixed(0)} bytes each on average; ${careful} (${((careful / count) * 100).toFixed(1)}%) need the careful parser`);
// Rounds interleave the passes, and each pass keeps its best round: the machine may be shared.
const best = new Map(Object.keys(passes).map((name) => [name, Infinity]));
for (const fn of Object.values(passes)) time(fn); // warm-up
for (let r = 0; r < rounds; r++) {
  for (const [name, fn] of Object.entries(passes)) best.set(name, Math.min(best.get(name), time(fn)));
}
const bare = best.get('JSON.parse (bare)');
console.table(
  [...best].map(([pass, seconds]) => ({
    pass,
    'lines/s': Math.round(count / seconds),
    'MB/s': +(bytes / seconds / 1e6).toFixed(1),
    'us/line': +((seconds / count) * 1e6).toFixed(2),
    'x JSON.parse': +(seconds / bare).toFixed(2),
  })),
);

// The same events as one JSON array (an element per line), fed in 64 KiB chunks.
const array = `[\n${lines.join(',\n')}\n]\n`;
const chunks = [];
for (let at = 0; at < array.length; at += 65536) chunks.push(array.slice(at, at + 65536));
let splitBest = Infinity;
for (let r = 0; r < rounds; r++) {
  const start = process.hrtime.bigint();
  const splitter = new JsonArraySplitter();
  const out = [];
  let elements = 0;
  for (const chunk of chunks) {
    splitter.push(chunk, out);
    elements += out.length;
    out.length = 0;
  }
  splitter.end(out);
  if (elements !== count || out.length !== 0) throw new Error(`split ${elements} elements`);
  splitBest = Math.min(splitBest, Number(process.hrtime.bigint() - start) / 1e9);
}
console.log(`JsonArraySplitter: ${Math.round(count / splitBest)} elements/s, ${(array.length / splitBest / 1e6).toFixed(1)} M chars/s (${((splitBest / count) * 1e6).toFixed(2)} us/element)`);
