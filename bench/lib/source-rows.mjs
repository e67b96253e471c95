// The rows of each benchmark source, vendor-shaped, from a fixed seed: nested objects and
// arrays, unicode, long URLs, a few big integers, and a few percent of rows each format's
// reader must reject (broken JSON, bad bytes, lone surrogates, missing fields, times out of
// bounds), skip (Amplitude's session markers) or recognise as repeated (Mixpanel's re-sent
// events). Each row says what staging must make of it, so the bench checks the counts too.
// Pure but for the bytes it returns; generate-source.mjs writes them.

/** What staging must make of a row. */
export const KINDS = ['staged', 'rejected', 'skipped', 'duplicates'];

/** mulberry32: small, deterministic. */
export function makeRandom(seed) {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(random() * n);
  const pick = (list) => list[int(list.length)];
  const HEX = '0123456789abcdef';
  const hex = (n) => {
    let out = '';
    for (let i = 0; i < n; i++) out += HEX[int(16)];
    return out;
  };
  const hyphenate = (h) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
  const uuid4 = () => hyphenate(`${hex(12)}4${hex(3)}${pick(['8', '9', 'a', 'b'])}${hex(15)}`);
  const uuid7 = (ms) => hyphenate(`${ms.toString(16).padStart(12, '0')}7${hex(3)}${pick(['8', '9', 'a', 'b'])}${hex(15)}`);
  return { random, int, pick, hex, uuid4, uuid7 };
}

const PLACES = [
  { city: 'Berlin', region: 'Berlin', code: 'DE' },
  { city: 'München', region: 'Bavaria', code: 'DE' },
  { city: 'São Paulo', region: 'São Paulo', code: 'BR' },
  { city: '東京', region: 'Tokyo', code: 'JP' },
  { city: 'Paris', region: 'Île-de-France', code: 'FR' },
  { city: 'Austin', region: 'Texas', code: 'US' },
  { city: 'Kraków', region: 'Lesser Poland', code: 'PL' },
  { city: 'Москва', region: 'Moscow', code: 'RU' },
];
const TITLES = ['Produto — Edição Especial 😀', 'Pricing', 'Docs: getting started', '価格 | Example', 'Blog » Launch 🚀', 'Zürich office'];
const PATHS = ['/products/category/item', '/pricing', '/docs/getting-started/install', '/blog/2024/東京-launch', '/app/dashboard/settings', '/checkout/cart'];
const BROWSERS = ['Chrome', 'Firefox', 'Safari', 'Edge'];
const OSES = ['Mac OS X', 'Windows', 'iOS', 'Android', 'Linux'];
const NOTES = ['Livraison rapide, merci ! 🎉', 'Größe passt nicht', '快递很快', 'ok', 'Line one\nline two', 'tab\there'];

/** Users of the sources, and devices per user: ids repeat as a real export's do. */
export const USERS = 500_000;
const DEVICES_PER_USER = 2;

/** Device `k` of user `u`: the same id wherever it appears (a hex string, or a uuid). */
function deviceOf(u, k, uuid = false) {
  const d = makeRandom(u * DEVICES_PER_USER + k + 1);
  return uuid ? d.uuid4() : `${d.hex(11)}-${d.hex(14)}-${d.hex(8)}-${d.hex(6)}-${d.hex(11)}`;
}

/** Times spread over 30 days from 2024-06-01, in file order. */
export const START_MS = Date.UTC(2024, 5, 1);
export const SPAN_MS = 30 * 24 * 3600 * 1000;

/** Row `i` of `total`: its time, increasing through the file (as exports are ordered). */
export function timeOf(r, i, total) {
  return START_MS + Math.floor((i / total) * SPAN_MS) + r.int(1000);
}

function url(r) {
  return `https://shop.example.com${r.pick(PATHS)}-${r.int(99_999)}?utm_source=newsletter&utm_medium=email&utm_campaign=spring_sale_${r.int(100)}&ref=homepage_banner_${r.hex(6)}`;
}

/** Nested business properties every format carries some of. */
function cart(r) {
  const items = [];
  for (let k = 0, n = 1 + r.int(3); k < n; k++) items.push({ sku: `SKU-${k}-${r.int(1000)}`, price: r.int(10_000) / 100, qty: 1 + r.int(4) });
  return { items, currency: r.pick(['EUR', 'USD', 'JPY']), coupon: r.random() < 0.3 ? null : `SPRING${r.int(50)}` };
}

function experiments(r) {
  return { exp_checkout: r.pick(['control', 'test']), exp_nav: { variant: r.pick(['A', 'B']), weight: 0.5, since: '2024-05-01' } };
}

/** A 19-digit id beyond 2^53 (within 64 bits): staged exactly, never rounded. */
function bigId(r) {
  return `${9_007_199_254_740_993n + BigInt(r.int(1e9)) * 1000n}`;
}

/** A JSON object text with `"key":<digits>` added last (JSON.stringify cannot write a BigInt). */
function withBigInteger(json, key, digits) {
  return `${json.slice(0, -1)},"${key}":${digits}}`;
}

/** Bytes of `text`, with one byte that is not UTF-8 in place of the first `¤`. */
function withBadByte(text) {
  const at = text.indexOf('¤');
  return Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([0xff]), Buffer.from(text.slice(at + 1))]);
}

/** The row as bytes and what staging makes of it. */
const row = (text, kind = 'staged') => ({ bytes: typeof text === 'string' ? Buffer.from(`${text}\n`) : Buffer.concat([text, Buffer.from('\n')]), kind });

/**
 * Which rows are awkward: one in about 40 is rejected (for one of `reasons`), a few in a
 * thousand are repeats (where the format has them). Fixed by the seed.
 */
function roll(r, reasons) {
  const x = r.random();
  if (x < 0.025) return reasons[r.int(reasons.length)];
  return x < 0.05 ? 'big' : x < 0.053 ? 'repeat' : 'plain';
}

// Mixpanel's raw export: {"event", "properties": {time (s), distinct_id, $insert_id, ...}}, with
// Simplified ID Merge's ids: an anonymous event's distinct_id is `$device:<$device_id>`, an
// identified one's its `$user_id`.
function mixpanelProperties(r, ms) {
  const place = r.pick(PLACES);
  const u = r.int(USERS);
  const device = deviceOf(u, r.int(DEVICES_PER_USER));
  const identified = r.random() >= 0.3;
  return {
    time: Math.floor(ms / 1000),
    distinct_id: identified ? `user_${u}` : `$device:${device}`,
    ...(identified ? { $user_id: `user_${u}` } : {}),
    $browser: r.pick(BROWSERS),
    $browser_version: 100 + r.int(30),
    $city: place.city,
    $current_url: url(r),
    $device_id: device,
    $initial_referrer: '$direct',
    $insert_id: r.hex(32),
    $lib_version: '2.47.0',
    $mp_api_endpoint: 'api.mixpanel.com',
    $mp_api_timestamp_ms: ms + r.int(1000),
    $os: r.pick(OSES),
    $region: place.region,
    $screen_height: 700 + r.int(500),
    $screen_width: 1200 + r.int(1400),
    mp_country_code: place.code,
    mp_lib: 'web',
    mp_processing_time_ms: ms + r.int(5000),
    title: r.pick(TITLES),
    cart: cart(r),
    tags: ['new', r.pick(['promo', 'organic', 'paid'])],
    ab: experiments(r),
  };
}

const MIXPANEL_EVENTS = ['Viewed Page', 'Clicked Button', 'Signed Up', 'Purchase', 'Search', '$mp_web_page_view'];

/** @returns {(i: number, total: number) => { bytes: Buffer, kind: string }} */
export function mixpanelRows(seed) {
  const r = makeRandom(seed);
  let last = '';
  return (i, total) => {
    const ms = timeOf(r, i, total);
    const properties = mixpanelProperties(r, ms);
    const record = { event: r.pick(MIXPANEL_EVENTS), properties };
    const what = roll(r, ['truncated', 'no-time', 'surrogate', 'bad-byte', 'no-id', 'future']);
    if (what === 'repeat' && last !== '') return row(last, 'duplicates');
    if (what === 'no-time') delete properties.time;
    if (what === 'future') properties.time = 4_102_444_800; // 2100
    if (what === 'no-id') {
      delete properties.distinct_id;
      delete properties.$user_id;
      delete properties.$device_id;
    }
    if (what === 'surrogate') properties.title = '\ud83d broken';
    if (what === 'bad-byte') properties.title = 'caf¤';
    let text = JSON.stringify(record);
    if (what === 'big') text = `${withBigInteger(text.slice(0, -1), 'order_id', bigId(r))}}`;
    if (what === 'truncated') return row(text.slice(0, text.length >> 1), 'rejected');
    if (what === 'bad-byte') return row(withBadByte(text), 'rejected');
    if (what !== 'plain' && what !== 'big' && what !== 'repeat') return row(text, 'rejected');
    last = text;
    return row(text);
  };
}

// Amplitude's Export API: one event per line, many top-level fields, event_properties and
// user_properties objects, event_time UTC with microseconds, a uuid per event.
function microTime(ms, micros) {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}${String(micros).padStart(3, '0')}`;
}

const AMPLITUDE_EVENTS = ['[Amplitude] Page Viewed', '[Amplitude] Page Viewed', 'Purchase', '[Amplitude] Element Clicked', 'Song Played', 'session_start', 'session_end', 'Search'];

function amplitudeEventProperties(r, type) {
  if (type === '[Amplitude] Page Viewed') {
    const location = url(r);
    return {
      '[Amplitude] Page Counter': 1 + r.int(5),
      '[Amplitude] Page Domain': 'shop.example.com',
      '[Amplitude] Page Location': location,
      '[Amplitude] Page Path': r.pick(PATHS),
      '[Amplitude] Page Title': r.pick(TITLES),
      referrer: 'https://www.google.com/',
      referring_domain: 'www.google.com',
    };
  }
  if (type === 'Purchase') return { revenue: r.int(10_000) / 100, cart: cart(r), note: r.pick(NOTES) };
  if (type === 'Song Played')
    return {
      song: { title: r.pick(['Für Elise', 'La Vie en rose', '上を向いて歩こう']), artist: { name: 'Various', country: 'FR' } },
      tags: ['classic', 'ünïcödé'],
      duration_ms: 60_000 + r.int(240_000),
    };
  if (type === 'Search') return { query: r.pick(['schuhe größe 42', '東京 hotel', 'pricing']), results: r.int(200), filters: { sort: 'relevance', facets: ['brand', 'size'] } };
  return { '[Amplitude] Element Text': 'Jetzt kaufen', '[Amplitude] Element Tag': 'button', ab: experiments(r) };
}

function amplitudeRecord(r, ms, id) {
  const type = r.pick(AMPLITUDE_EVENTS);
  const place = r.pick(PLACES);
  const u = r.int(USERS);
  // A device's events before its user logs in carry no user_id.
  const userId = r.random() < 0.7 ? `user_${u}` : null;
  const deviceId = deviceOf(u, r.int(DEVICES_PER_USER), true);
  const micros = r.int(1000);
  const received = ms + 200 + r.int(4000);
  return {
    $insert_id: r.uuid4(),
    $insert_key: null,
    $schema: 12,
    adid: null,
    amplitude_attribution_ids: null,
    amplitude_event_type: null,
    amplitude_id: 880_000_000 + r.int(100_000),
    app: 123456,
    city: place.city,
    client_event_time: microTime(ms, micros),
    client_upload_time: microTime(received - 100, 0),
    country: place.code,
    data: { path: '/2/httpapi', user_properties_updated: true },
    data_type: 'event',
    device_carrier: null,
    device_id: deviceId,
    device_type: r.pick(OSES),
    dma: null,
    event_id: id,
    event_properties: amplitudeEventProperties(r, type),
    event_time: microTime(ms, micros),
    event_type: type,
    global_user_properties: {},
    group_properties: {},
    groups: r.random() < 0.2 ? { company: ['Acme GmbH'] } : {},
    idfa: null,
    ip_address: `203.0.113.${1 + r.int(254)}`,
    is_attribution_event: false,
    language: r.pick(['English', 'German', 'Japanese']),
    library: 'amplitude-ts/2.11.1',
    location_lat: null,
    location_lng: null,
    os_name: r.pick(BROWSERS),
    os_version: String(120 + r.int(10)),
    partner_id: null,
    paying: null,
    plan: {},
    platform: 'Web',
    processed_time: microTime(received + 60_000, 0),
    region: place.region,
    sample_rate: null,
    server_received_time: microTime(received, 0),
    server_upload_time: microTime(received + 5, 0),
    session_id: ms - r.int(600_000),
    source_id: null,
    start_version: null,
    user_creation_time: microTime(ms - 30 * 86_400_000, 0),
    user_id: userId,
    user_properties: { plan: r.pick(['free', 'pro']), initial_referrer: r.pick(['EMPTY', 'https://www.google.com/']), 名前: userId ?? 'anon', cohorts: [r.int(100), r.int(100)] },
    uuid: r.uuid4(),
    version_name: null,
  };
}

export function amplitudeRows(seed) {
  const r = makeRandom(seed);
  return (i, total) => {
    const ms = timeOf(r, i, total);
    const record = amplitudeRecord(r, ms, i + 1);
    const what = roll(r, ['truncated', 'bad-uuid', 'no-id', 'bad-time', 'bad-properties', 'bad-byte']);
    // Session markers are dropped by name, before their uuid, user or time is looked at.
    const isSession = record.event_type === 'session_start' || record.event_type === 'session_end';
    if (what === 'bad-uuid') record.uuid = 'not-a-uuid';
    if (what === 'no-id') {
      record.user_id = null;
      record.device_id = null;
    }
    if (what === 'bad-time') record.event_time = '2024-06-31 10:00:00.000000';
    if (what === 'bad-properties') record.event_properties = 'oops';
    if (what === 'bad-byte') record.language = 'Portugu¤s';
    let text = JSON.stringify(record);
    if (what === 'big') text = withBigInteger(text, 'org_id', bigId(r));
    if (what === 'truncated') return row(text.slice(0, text.length >> 1), 'rejected');
    if (what === 'bad-byte') return row(withBadByte(text), 'rejected');
    if (what === 'bad-properties') return row(text, 'rejected');
    if (what !== 'plain' && what !== 'big' && what !== 'repeat') return row(text, isSession ? 'skipped' : 'rejected');
    return row(text, isSession ? 'skipped' : 'staged');
  };
}

// PostHog's batch export: uuid, event, distinct_id, properties, elements_chain, timestamp, and
// what PostHog computed on arrival (person_id, person_properties, created_at, ...).
const POSTHOG_EVENTS = ['$pageview', '$pageview', '$autocapture', 'order completed', '$identify', 'search'];

function posthogRecord(r, ms) {
  const place = r.pick(PLACES);
  const user = `user_${r.int(USERS)}`;
  const event = r.pick(POSTHOG_EVENTS);
  const current = url(r);
  const properties = {
    $lib: 'web',
    $lib_version: '1.166.0',
    $browser: r.pick(BROWSERS),
    $os: r.pick(OSES),
    $current_url: current,
    $host: 'shop.example.com',
    $pathname: r.pick(PATHS),
    $session_id: r.uuid7(ms - r.int(900_000)),
    $window_id: r.uuid7(ms - r.int(900_000)),
    $ip: `198.51.100.${1 + r.int(254)}`,
    $geoip_city_name: place.city,
    $geoip_country_code: place.code,
    $geoip_subdivision_1_name: place.region,
    $screen_width: 1200 + r.int(1400),
    $referrer: 'https://www.google.com/',
    $active_feature_flags: ['new-checkout', 'beta-nav'],
    $feature_flag_payloads: { 'new-checkout': { layout: 'grid' } },
    title: r.pick(TITLES),
  };
  if (event === 'order completed') Object.assign(properties, { order: cart(r), note: r.pick(NOTES) });
  if (event === '$identify') properties.$set = { email: `${user}@example.com`, name: r.pick(['Zoë', 'Björn', '李雷', 'Chloé']) };
  const created = ms + 100 + r.int(3000);
  const iso = (t) => new Date(t).toISOString().replace('Z', `${String(r.int(1000)).padStart(3, '0')}Z`);
  return {
    uuid: r.uuid7(ms),
    event,
    properties,
    elements_chain: event === '$autocapture' ? 'button.btn.btn-primary:attr__class="btn btn-primary"nth-child="2"nth-of-type="1"text="Jetzt kaufen";form:nth-child="1"' : '',
    set: {},
    set_once: {},
    distinct_id: user,
    team_id: 2,
    ip: properties.$ip,
    site_url: '',
    timestamp: iso(ms),
    created_at: iso(created),
    person_id: r.uuid4(),
    person_properties: { email: `${user}@example.com`, plan: r.pick(['free', 'pro']) },
    _inserted_at: iso(created + 1000),
  };
}

export function posthogRows(seed) {
  const r = makeRandom(seed);
  return (i, total) => {
    const ms = timeOf(r, i, total);
    const record = posthogRecord(r, ms);
    const what = roll(r, ['truncated', 'bad-uuid', 'no-id', 'future', 'no-event', 'bad-byte']);
    if (what === 'bad-uuid') record.uuid = 'not-a-uuid';
    if (what === 'no-id') record.distinct_id = null;
    if (what === 'future') record.timestamp = '2999-01-01T00:00:00.000000Z';
    if (what === 'no-event') record.event = '';
    if (what === 'bad-byte') record.properties.title = 'caf¤';
    // A few exports (Parquet-derived) write properties as JSON text.
    if (what === 'repeat') record.properties = JSON.stringify(record.properties);
    let text = JSON.stringify(record);
    if (what === 'big') text = withBigInteger(text, 'order_id', bigId(r));
    if (what === 'truncated') return row(text.slice(0, text.length >> 1), 'rejected');
    if (what === 'bad-byte') return row(withBadByte(text), 'rejected');
    if (what !== 'plain' && what !== 'big' && what !== 'repeat') return row(text, 'rejected');
    return row(text);
  };
}

// Plain JSON lines as a team's own export writes them: event, distinct_id, ISO timestamp,
// nested properties, no uuid (so one is derived from the whole record).
function plainRecord(r, ms) {
  const place = r.pick(PLACES);
  return {
    event: r.pick(['page_view', 'button_clicked', 'signed_up', 'purchase', 'search']),
    distinct_id: `user_${r.int(USERS)}`,
    timestamp: new Date(ms).toISOString(),
    properties: {
      $current_url: url(r),
      $browser: r.pick(BROWSERS),
      $os: r.pick(OSES),
      city: place.city,
      country: place.code,
      title: r.pick(TITLES),
      session_id: `s${r.int(1e9)}`,
      screen: { width: 1200 + r.int(1400), height: 700 + r.int(500) },
      cart: cart(r),
      tags: ['new', r.pick(['promo', 'organic'])],
      ab: experiments(r),
      note: r.pick(NOTES),
    },
  };
}

export function jsonlRows(seed) {
  const r = makeRandom(seed);
  return (i, total) => {
    const record = plainRecord(r, timeOf(r, i, total));
    const what = roll(r, ['truncated', 'no-event', 'bad-time', 'no-id', 'bad-properties', 'bad-byte', 'surrogate']);
    if (what === 'no-event') delete record.event;
    if (what === 'bad-time') record.timestamp = 'yesterday at noon';
    if (what === 'no-id') record.distinct_id = '';
    if (what === 'bad-properties') record.properties = ['not', 'an', 'object'];
    if (what === 'bad-byte') record.properties.title = 'caf¤';
    if (what === 'surrogate') record.properties.title = 'x\udc00y';
    let text = JSON.stringify(record);
    if (what === 'big') text = `${withBigInteger(text.slice(0, -1), 'order_id', bigId(r))}}`;
    if (what === 'truncated') return row(text.slice(0, text.length >> 1), 'rejected');
    if (what === 'bad-byte') return row(withBadByte(text), 'rejected');
    if (what !== 'plain' && what !== 'big' && what !== 'repeat') return row(text, 'rejected');
    return row(text);
  };
}

// CSV with a properties column of nested JSON; a note column whose quoted values hold line
// ends; a few properties written pretty-printed over several lines.
export const CSV_NESTED_HEADER = 'event,distinct_id,timestamp,$current_url,$browser,note,properties\n';

const csvCell = (value) => (/[",\n\r]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

export function csvNestedRows(seed) {
  const r = makeRandom(seed);
  return (i, total) => {
    const record = plainRecord(r, timeOf(r, i, total));
    const { $current_url: current, $browser: browser, note, ...properties } = record.properties;
    const what = roll(r, ['no-event', 'bad-time', 'no-id', 'bad-json', 'bad-byte']);
    if (what === 'no-event') record.event = '';
    if (what === 'bad-time') record.timestamp = 'yesterday at noon';
    if (what === 'no-id') record.distinct_id = '';
    if (what === 'bad-byte') properties.title = 'caf¤';
    let json = r.random() < 0.05 ? JSON.stringify(properties, null, 1) : JSON.stringify(properties);
    if (what === 'big') json = withBigInteger(json, 'order_id', bigId(r));
    if (what === 'bad-json') json = json.slice(0, json.length >> 1);
    const text = [record.event, record.distinct_id, record.timestamp, current, browser, note, json].map(csvCell).join(',');
    if (what === 'bad-byte') return row(withBadByte(text), 'rejected');
    if (what !== 'plain' && what !== 'big' && what !== 'repeat') return row(text, 'rejected');
    return row(text);
  };
}
