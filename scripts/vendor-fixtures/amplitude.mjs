// Amplitude Export API fixtures, written from Amplitude's export documentation: a zip of
// gzipped JSON-lines files, one or more per hour, named <project>/<project>_<day>_<hour>#<n>.json.gz,
// each line one event with event_time (UTC, microseconds), user_id / device_id, uuid, ...
import { makeRandom, microTime, PEOPLE, PLACES } from './random.mjs';

const r = makeRandom(4242);
const PROJECT = 123456;
const HOUR = 3_600_000;
const devices = Array.from({ length: 10 }, () => r.uuid4());
const pages = [
  ['/', 'Home'],
  ['/pricing', 'Pricing'],
  ['/docs/getting-started', 'Getting started'],
  ['/blog/東京-launch', 'Tōkyō launch 🎉'],
];

function platformFields(web) {
  if (web) {
    return {
      platform: 'Web',
      os_name: r.pick(['Chrome', 'Firefox', 'Safari']),
      os_version: String(r.int(120, 130)),
      device_type: r.pick(['Mac OS X', 'Windows', 'Linux']),
      device_family: null,
      device_model: null,
      device_manufacturer: null,
      device_brand: null,
      version_name: null,
      library: 'amplitude-ts/2.11.1',
    };
  }
  return {
    platform: 'iOS',
    os_name: 'ios',
    os_version: '17.5.1',
    device_type: 'Apple iPhone 14 Pro',
    device_family: 'Apple iPhone',
    device_model: 'iPhone15,2',
    device_manufacturer: 'Apple',
    device_brand: null,
    version_name: '3.4.1',
    library: 'amplitude-swift/1.9.2',
  };
}

function eventProperties(type, web) {
  if (type === '[Amplitude] Page Viewed') {
    const [path, title] = r.pick(pages);
    const query = r.random() < 0.3 ? '?utm_source=newsletter' : '';
    return {
      '[Amplitude] Page Counter': r.int(1, 5),
      '[Amplitude] Page Domain': 'shop.example.com',
      '[Amplitude] Page Location': `https://shop.example.com${path}${query}`,
      '[Amplitude] Page Path': path,
      '[Amplitude] Page Title': title,
      '[Amplitude] Page URL': `https://shop.example.com${path}`,
      referrer: 'https://www.google.com/',
      referring_domain: 'www.google.com',
    };
  }
  if (type === 'Song Played')
    return {
      song: { title: r.pick(['Für Elise', 'La Vie en rose', '上を向いて歩こう']), artist: { name: 'Various', country: 'FR' } },
      tags: ['classic', 'ünïcödé'],
      duration_ms: r.int(60_000, 300_000),
    };
  if (type === 'Purchase') return { revenue: r.int(100, 9999) / 100, currency: 'EUR', items: [{ id: `SKU-${r.int(100, 999)}`, qty: r.int(1, 3) }] };
  if (type === '[Amplitude] Element Clicked') return { '[Amplitude] Element Text': 'Jetzt kaufen', '[Amplitude] Element Tag': 'button', '[Amplitude] Page URL': 'https://shop.example.com/pricing' };
  if (type === '[Amplitude] Screen Viewed') return { '[Amplitude] Screen Name': web ? 'Home' : 'Player' };
  return {};
}

function userProperties(userId) {
  const props = { plan: r.pick(['free', 'pro']), initial_referrer: r.pick(['EMPTY', 'https://www.google.com/']), initial_utm_source: r.pick(['EMPTY', 'newsletter']) };
  if (userId) props.名前 = userId.split('@')[0];
  return props;
}

function eventAt(ms, id) {
  const web = r.random() < 0.75;
  const type = r.pick(
    web
      ? ['[Amplitude] Page Viewed', '[Amplitude] Page Viewed', 'Purchase', '[Amplitude] Element Clicked', 'session_start', 'session_end']
      : ['Song Played', 'Song Played', '[Amplitude] Screen Viewed', 'Purchase', 'session_start'],
  );
  const userId = r.random() < 0.7 ? r.pick(PEOPLE) : null;
  const place = r.pick(PLACES);
  const micros = r.int(0, 999);
  const received = ms + r.int(200, 4000);
  return {
    $insert_id: r.uuid4(),
    $insert_key: null,
    $schema: 12,
    adid: null,
    amplitude_attribution_ids: null,
    amplitude_event_type: null,
    amplitude_id: 880000000 + r.int(1, 99),
    app: PROJECT,
    city: place.city,
    client_event_time: microTime(ms, micros),
    client_upload_time: microTime(received - 100, 0),
    country: place.country,
    data: { path: '/2/httpapi', user_properties_updated: true },
    data_type: 'event',
    device_carrier: null,
    device_id: r.pick(devices),
    dma: null,
    event_id: id,
    event_properties: eventProperties(type, web),
    event_time: microTime(ms, micros),
    event_type: type,
    global_user_properties: {},
    group_properties: {},
    groups: r.random() < 0.2 ? { company: ['Acme GmbH'] } : {},
    idfa: null,
    ip_address: `203.0.113.${r.int(1, 254)}`,
    is_attribution_event: false,
    language: r.pick(['English', 'German', 'Japanese']),
    location_lat: null,
    location_lng: null,
    partner_id: null,
    paying: null,
    plan: {},
    processed_time: microTime(received + 60_000, 0),
    region: place.region,
    sample_rate: null,
    server_received_time: microTime(received, 0),
    server_upload_time: microTime(received + 5, 0),
    session_id: ms - r.int(0, 600_000),
    source_id: null,
    start_version: null,
    user_creation_time: microTime(ms - 30 * 86_400_000, 0),
    user_id: userId,
    user_properties: userProperties(userId),
    uuid: r.uuid4(),
    ...platformFields(web),
  };
}

/** Rows each explained on reject, and a few edge cases that stage. */
function awkwardRows(ms) {
  const base = (extra) => JSON.stringify({ ...eventAt(ms, 9000), event_type: 'Purchase', ...extra });
  return [
    base({ user_id: null, device_id: null }), // no one to attribute it to
    base({ uuid: 'not-a-uuid' }),
    base({ event_time: '2025-09-31 10:00:00.000000' }),
    base({ event_properties: 'oops' }),
    '{"event_type":"Purchase","user_id":"ana@example.com","event_time":"2025-09-01 10:00:00.000000","uuid":',
    base({ uuid: null, event_type: 'Song Played' }), // no uuid: one is derived from the record
  ];
}

/** The hourly files of the export: name -> JSON-lines text (not yet gzipped). */
export function amplitudeFiles() {
  const hours = [
    ['2025-09-01', 9, 0],
    ['2025-09-01', 10, 0],
    ['2025-09-01', 14, 0],
    ['2025-09-02', 9, 0],
    ['2025-09-02', 10, 0],
    ['2025-09-03', 9, 0],
    ['2025-09-03', 9, 1],
  ];
  const files = {};
  let id = 1;
  for (const [day, hour, part] of hours) {
    const start = Date.parse(`${day}T00:00:00Z`) + hour * HOUR;
    const times = Array.from({ length: r.int(25, 40) }, () => start + Math.floor(r.random() * HOUR)).sort((a, b) => a - b);
    const rows = times.map((ms) => JSON.stringify(eventAt(ms, id++)));
    if (day === '2025-09-02' && hour === 9) rows.splice(5, 0, ...awkwardRows(start + 60_000));
    files[`${PROJECT}/${PROJECT}_${day}_${hour}#${part}.json`] = rows.join('\n') + '\n';
  }
  return files;
}
