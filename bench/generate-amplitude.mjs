#!/usr/bin/env node
// Writes a synthetic Amplitude Export API source for benchmarks, with a fixed seed: every user has
// two devices and five sessions, the first events of a device come before login (device_id only),
// a few devices are shared, and a fifth of the events carry a company group with its properties.
// Output: a zip of hourly gzipped JSON-lines files (as the Export API gives them) when the name
// ends in .zip, else one gzipped JSON-lines file.
// Usage: node bench/generate-amplitude.mjs <out.zip|out.jsonl.gz> [events=1000000] [users=50000]
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { makeRandom, microTime, PLACES } from '../scripts/vendor-fixtures/random.mjs';
import { makeZip } from '../scripts/zip-writer.mjs';

const [out, eventsArg, usersArg] = process.argv.slice(2);
if (!out) {
  console.error('usage: node bench/generate-amplitude.mjs <out.zip|out.jsonl.gz> [events=1000000] [users=50000]');
  process.exit(2);
}
const total = Number(eventsArg ?? 1_000_000);
const users = Number(usersArg ?? 50_000);
const SESSIONS = 5;
const DEVICES = 2;
const PROJECT = 123456;
const HOUR = 3_600_000;
const start = Date.UTC(2025, 6, 1);
const spanMs = 30 * 24 * HOUR;
const r = makeRandom(20250701);

const types = ['[Amplitude] Page Viewed', '[Amplitude] Page Viewed', 'Song Played', 'Purchase', '[Amplitude] Element Clicked', 'Search'];
const paths = ['/', '/pricing', '/docs/getting-started', '/blog/launch', '/app/dashboard'];
const companies = Array.from({ length: 500 }, (_, i) => `company_${i}`);

// Compact event plan: one entry per event in typed arrays, sorted by time afterwards.
const time = new Float64Array(total);
const owner = new Int32Array(total); // user index
const device = new Int8Array(total);
const session = new Int8Array(total);
const anonymous = new Uint8Array(total);
const sessionStart = new Float64Array(users * SESSIONS);
for (let u = 0; u < users; u++) {
  const first = start + Math.floor(r.random() * (spanMs - 6 * 24 * HOUR));
  for (let s = 0; s < SESSIONS; s++) sessionStart[u * SESSIONS + s] = first + s * 24 * HOUR + r.int(0, 12) * HOUR;
}
for (let i = 0; i < total; i++) {
  const u = i % users;
  const k = Math.floor(i / users); // the user's k-th event
  const perUser = Math.ceil(total / users);
  const s = Math.min(SESSIONS - 1, Math.floor((k * SESSIONS) / perUser));
  owner[i] = u;
  session[i] = s;
  device[i] = s % DEVICES; // sessions alternate between the two devices
  // The first two events on each device come before login.
  anonymous[i] = s < DEVICES && k % Math.ceil(perUser / SESSIONS) < 2 ? 1 : 0;
  time[i] = sessionStart[u * SESSIONS + s] + (k % Math.ceil(perUser / SESSIONS)) * r.int(20_000, 90_000);
}
const order = Array.from({ length: total }, (_, i) => i).sort((a, b) => time[a] - time[b] || a - b);

const deviceIds = new Map();
function deviceId(u, d) {
  // One device in a thousand is a family computer also used by the next user.
  const shared = d === 1 && u % 1000 === 1 ? u - 1 : u;
  const key = shared * DEVICES + d;
  let id = deviceIds.get(key);
  if (id === undefined) deviceIds.set(key, (id = r.uuid4()));
  return id;
}

function record(i, id) {
  const u = owner[i];
  const ms = time[i];
  const type = r.pick(types);
  const place = PLACES[u % PLACES.length];
  const path = r.pick(paths);
  const company = companies[u % companies.length];
  const grouped = u % 5 === 0;
  const received = ms + r.int(200, 4000);
  const userId = anonymous[i] === 1 ? null : `user_${u}@example.com`;
  return {
    $insert_id: r.uuid4(),
    $insert_key: null,
    $schema: 12,
    adid: null,
    amplitude_attribution_ids: null,
    amplitude_event_type: null,
    amplitude_id: 880000000 + u,
    app: PROJECT,
    city: place.city,
    client_event_time: microTime(ms, 0),
    client_upload_time: microTime(received - 100, 0),
    country: place.country,
    data: { path: '/2/httpapi' },
    data_type: 'event',
    device_carrier: null,
    device_id: deviceId(u, device[i]),
    dma: null,
    event_id: id,
    event_properties:
      type === '[Amplitude] Page Viewed'
        ? {
            '[Amplitude] Page Domain': 'shop.example.com',
            '[Amplitude] Page Location': `https://shop.example.com${path}`,
            '[Amplitude] Page Path': path,
            '[Amplitude] Page Title': path.slice(1) || 'Home',
            referrer: 'https://www.google.com/',
          }
        : { value: r.int(1, 1000), label: r.pick(['a', 'b', 'c']) },
    event_time: microTime(ms, r.int(0, 999)),
    event_type: type,
    global_user_properties: {},
    group_properties: grouped ? { company: { [company]: { name: company.replace('_', ' '), plan: Math.floor(ms / (10 * 24 * HOUR)) % 2 === 0 ? 'free' : 'pro' } } } : {},
    groups: grouped ? { company: [company] } : {},
    idfa: null,
    ip_address: `203.0.113.${(u % 254) + 1}`,
    is_attribution_event: false,
    language: 'English',
    location_lat: null,
    location_lng: null,
    os_name: r.pick(['Chrome', 'Firefox', 'Safari']),
    os_version: '126',
    paying: null,
    platform: 'Web',
    processed_time: microTime(received + 60_000, 0),
    region: place.region,
    server_received_time: microTime(received, 0),
    server_upload_time: microTime(received + 5, 0),
    session_id: sessionStart[u * SESSIONS + session[i]],
    device_type: 'Mac OS X',
    user_id: userId,
    user_properties: userId === null ? {} : { plan: u % 3 === 0 ? 'pro' : 'free', initial_referrer: 'EMPTY' },
    uuid: r.uuid4(),
    library: 'amplitude-ts/2.11.1',
  };
}

const files = [];
let lines = [];
let hour = Math.floor(time[order[0]] / HOUR);
function flush() {
  if (lines.length === 0) return;
  const iso = new Date(hour * HOUR).toISOString();
  files.push({ name: `${PROJECT}/${PROJECT}_${iso.slice(0, 10)}_${Number(iso.slice(11, 13))}#0.json.gz`, data: gzipSync(lines.join('\n') + '\n', { level: 1 }) });
  lines = [];
}
for (let n = 0; n < total; n++) {
  const i = order[n];
  const h = Math.floor(time[i] / HOUR);
  if (h !== hour) {
    flush();
    hour = h;
  }
  lines.push(JSON.stringify(record(i, n + 1)));
}
flush();
writeFileSync(out, out.endsWith('.zip') ? makeZip(files) : Buffer.concat(files.map((f) => f.data)));
console.log(`${out}: ${total} events, ${users} users${out.endsWith('.zip') ? `, ${files.length} hourly files` : ''}`);
