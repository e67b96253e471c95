// Mixpanel raw-export fixtures (JSON lines of {event, properties}), written from Mixpanel's
// raw event export documentation: `time` in epoch seconds (ms with time_in_ms=true),
// `distinct_id`, `$insert_id`, Mixpanel's own bookkeeping properties, geo properties.
import { makeRandom, PEOPLE, PLACES } from './random.mjs';

const r = makeRandom(7101);
const DAY = 86_400_000;
const pages = ['/', '/pricing', '/docs/getting-started', '/blog/東京-launch', '/app/settings?tab=billing'];
const browsers = [
  ['Chrome', 128],
  ['Firefox', 130],
  ['Safari', 17.6],
  ['Microsoft Edge', 128],
];
const devices = Array.from({ length: 12 }, () => r.uuid4());

function baseProperties(ms, user, device, inMs) {
  const place = r.pick(PLACES);
  const [browser, version] = r.pick(browsers);
  const properties = {
    time: inMs ? ms : Math.floor(ms / 1000),
    distinct_id: user ?? `$device:${device}`,
    $browser: browser,
    $browser_version: version,
    $city: place.city,
    $region: place.region,
    mp_country_code: place.code,
    $device_id: device,
    $os: r.pick(['Mac OS X', 'Windows', 'Linux', 'iOS']),
    $screen_height: r.pick([900, 1080, 1440]),
    $screen_width: r.pick([1440, 1920, 2560]),
    mp_lib: 'web',
    $lib_version: '2.55.1',
    $mp_api_endpoint: 'api-js.mixpanel.com',
    $mp_api_timestamp_ms: ms + r.int(50, 900),
    mp_processing_time_ms: ms + r.int(1000, 5000),
  };
  if (user) properties.$user_id = user;
  if (r.random() < 0.85) properties.$insert_id = r.hex(32);
  return properties;
}

function eventAt(ms, inMs) {
  const device = r.pick(devices);
  const user = r.random() < 0.75 ? r.pick(PEOPLE) : undefined;
  const properties = baseProperties(ms, user, device, inMs);
  const roll = r.random();
  if (roll < 0.5) {
    const path = r.pick(pages);
    return {
      event: '$mp_web_page_view',
      properties: { ...properties, $current_url: `https://shop.example.com${path}`, current_page_title: 'Shop — Example', $referrer: r.pick(['$direct', 'https://www.google.com/']) },
    };
  }
  if (roll < 0.65) return { event: 'Signed Up', properties: { ...properties, plan: r.pick(['free', 'pro']), referral: { source: r.pick(['friend', 'ad']), campaign: 'rentrée 2025' } } };
  if (roll < 0.85) {
    const items = Array.from({ length: r.int(1, 3) }, (_, i) => ({ sku: `SKU-${r.int(100, 999)}`, name: r.pick(['Café mug', 'Notebook (A5)', 'Sticker pack 🎉']), quantity: i + 1 }));
    return { event: 'Item Purchased', properties: { ...properties, items, total: r.int(500, 9000) / 100, currency: 'EUR' } };
  }
  return { event: 'Search', properties: { ...properties, query: r.pick(['größe', 'café', '東京', 'emoji 🎉', 'a "quoted" term']) } };
}

function eventsBetween(startMs, days, count, inMs) {
  const times = Array.from({ length: count }, () => startMs + Math.floor(r.random() * days * DAY)).sort((a, b) => a - b);
  return times.map((ms) => eventAt(ms, inMs));
}

/** Same content, keys in another order: a re-export may order them differently. */
function reordered(record) {
  return { properties: Object.fromEntries(Object.entries(record.properties).reverse()), event: record.event };
}

/** Rows a real export can hold that are not events PostHog can take, each explained on reject. */
function badRows(septemberMs) {
  const t = Math.floor((septemberMs + 3 * DAY) / 1000);
  return [
    '{"event":"Signed Up","properties":{"time":' + t + ',"distinct_id":"ana@example.com","plan":',
    JSON.stringify({ event: 'Search', properties: { distinct_id: 'ana@example.com', $insert_id: 'no-time-0001', query: 'x' } }),
    JSON.stringify({ event: 'Search', properties: { time: t, distinct_id: '', $insert_id: 'no-user-0001', query: 'y' } }),
    JSON.stringify({ event: 'Signed Up', properties: [t, 'ana@example.com'] }),
    JSON.stringify({ event: 'Search', properties: { time: 4102444800, distinct_id: 'ana@example.com', $insert_id: 'future-0001' } }),
    JSON.stringify({ properties: { time: t, distinct_id: 'ana@example.com', $insert_id: 'no-name-0001' } }),
  ];
}

const lines = (records) => records.map((record) => (typeof record === 'string' ? record : JSON.stringify(record))).join('\n') + '\n';

/** The three Mixpanel fixture files: two overlapping exports in seconds, one in ms. */
export function mixpanelFixtures() {
  const september = Date.UTC(2025, 8, 1);
  const all = eventsBetween(september, 30, 360, false);
  const firstHalf = all.filter((e) => e.properties.time * 1000 < september + 20 * DAY);
  const secondHalf = all.filter((e) => e.properties.time * 1000 >= september + 14 * DAY);
  const withBad = [...firstHalf];
  const bad = badRows(september);
  bad.forEach((row, i) => withBad.splice(10 + i * 25, 0, row));
  withBad.splice(60, 0, withBad[40]); // an exact repeat: staged once
  const october = eventsBetween(Date.UTC(2025, 9, 1), 20, 120, true);
  return {
    'export-2025-09-01_2025-09-20.jsonl': lines(withBad),
    'export-2025-09-15_2025-09-30.jsonl.gz': lines(secondHalf.map(reordered)),
    'export-2025-10-time_in_ms.jsonl': lines(october),
  };
}
