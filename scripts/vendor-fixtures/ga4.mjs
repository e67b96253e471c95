// GA4 BigQuery-export fixtures, written from Google's "BigQuery Export schema" for GA4: one row
// of an events_YYYYMMDD table per line, as `bq extract --destination_format
// NEWLINE_DELIMITED_JSON` writes it (INT64 values as strings of digits, FLOAT64 as numbers):
// event_date, event_timestamp (microseconds, UTC), event_name, event_params and
// user_properties as lists of {key, value: {string_value | int_value | float_value |
// double_value}}, user_id / user_pseudo_id, device, geo, app_info, traffic_source,
// collected_traffic_source, ecommerce, items, event_bundle_sequence_id and the batch_* fields.
import { makeRandom } from './random.mjs';

const r = makeRandom(4404);
const DAY = 86_400_000;
const DAYS = [Date.parse('2025-09-01T00:00:00Z'), Date.parse('2025-09-02T00:00:00Z')];
const STREAM_WEB = '4567890123';
const STREAM_APP = '4567890124';
const PAGES = [
  ['/', 'Home'],
  ['/pricing', 'Preise'],
  ['/blog/東京-launch', 'Tōkyō launch 🎉'],
  ['/checkout', 'Checkout'],
];
const PLACES = [
  { city: 'München', region: 'Bavaria', country: 'Germany', continent: 'Europe', sub_continent: 'Western Europe', metro: '(not set)' },
  { city: 'São Paulo', region: 'State of Sao Paulo', country: 'Brazil', continent: 'Americas', sub_continent: 'South America', metro: '(not set)' },
  { city: 'Austin', region: 'Texas', country: 'United States', continent: 'Americas', sub_continent: 'Northern America', metro: 'Austin TX' },
  { city: '(not set)', region: '(not set)', country: 'Japan', continent: 'Asia', sub_continent: 'Eastern Asia', metro: '(not set)' },
];

const str = (key, value) => ({ key, value: { string_value: value, int_value: null, float_value: null, double_value: null } });
const int = (key, value) => ({ key, value: { string_value: null, int_value: String(value), float_value: null, double_value: null } });
const dbl = (key, value) => ({ key, value: { string_value: null, int_value: null, float_value: null, double_value: value } });
const dayOf = (ms) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');

/** Web devices as GA4 describes them: category, brand and model, system, browser. */
const WEB_DEVICES = [
  ['desktop', 'Google', 'Chrome', 'Windows', 'Windows 10', 'Chrome', '128.0.6613.120'],
  ['desktop', 'Apple', 'Safari', 'Macintosh', 'Macintosh Intel 10.15', 'Safari', '17.5'],
  ['desktop', 'Mozilla', 'Firefox', 'Linux', 'Linux x86_64', 'Firefox', '130.0'],
  ['mobile', 'Apple', 'iPhone', 'iOS', 'iOS 17.5.1', 'Safari', '17.5'],
  ['tablet', 'Samsung', 'SM-X710', 'Android', 'Android 14', 'Chrome', '128.0.6613.127'],
  ['desktop', '(not set)', '(not set)', 'Windows', 'Windows 11', 'Edge', '128.0.2739.67'],
];

function webDevice() {
  const [category, brand, model, system, version, browser, browserVersion] = r.pick(WEB_DEVICES);
  return {
    category,
    mobile_brand_name: brand,
    mobile_model_name: model,
    mobile_marketing_name: '(not set)',
    mobile_os_hardware_model: null,
    operating_system: system,
    operating_system_version: version,
    vendor_id: null,
    advertising_id: null,
    language: r.pick(['de-de', 'fr-fr', 'ja-jp']),
    is_limited_ad_tracking: 'No',
    time_zone_offset_seconds: null,
    browser: null,
    browser_version: null,
    web_info: { browser, browser_version: browserVersion, hostname: 'shop.example.com' },
  };
}

function appDevice() {
  return {
    category: 'mobile',
    mobile_brand_name: 'Apple',
    mobile_model_name: 'iPhone 14 Pro',
    mobile_marketing_name: 'iPhone 14 Pro',
    mobile_os_hardware_model: 'iPhone15,2',
    operating_system: 'iOS',
    operating_system_version: 'iOS 17.5.1',
    vendor_id: r.uuid4().toUpperCase(),
    advertising_id: null,
    language: 'ja-jp',
    is_limited_ad_tracking: 'Yes',
    time_zone_offset_seconds: '32400',
    browser: null,
    browser_version: null,
    web_info: null,
  };
}

/** One export row; `params` and `extra` are the event's own. */
function row(ms, name, user, params, extra = {}) {
  const micros = BigInt(ms) * 1000n + BigInt(r.int(0, 999));
  const web = user.web;
  return {
    event_date: dayOf(ms),
    event_timestamp: String(micros),
    event_name: name,
    event_params: params,
    event_previous_timestamp: null,
    event_value_in_usd: null,
    event_bundle_sequence_id: String(user.bundle++),
    event_server_timestamp_offset: String(r.int(100000, 900000)),
    user_id: user.userId ?? null,
    user_pseudo_id: user.pseudoId,
    privacy_info: { analytics_storage: 'Yes', ads_storage: 'No', uses_transient_token: 'No' },
    user_properties: user.properties,
    user_first_touch_timestamp: String(user.firstTouchMicros),
    user_ltv: user.userId ? { revenue: 59.8, currency: 'EUR' } : null,
    device: web ? user.device : appDevice(),
    geo: user.place,
    app_info: web ? null : { id: 'com.example.musikbox', version: '3.4.1', install_store: null, firebase_app_id: '1:1234567890:ios:abc123', install_source: 'com.apple.AppStore' },
    traffic_source: user.firstSource,
    stream_id: web ? STREAM_WEB : STREAM_APP,
    platform: web ? 'WEB' : 'IOS',
    event_dimensions: null,
    ecommerce: null,
    items: [],
    collected_traffic_source: web
      ? {
          manual_campaign_id: null,
          manual_campaign_name: user.campaign ? 'autumn-sale' : null,
          manual_source: user.campaign ? 'newsletter' : null,
          manual_medium: user.campaign ? 'email' : null,
          manual_term: null,
          manual_content: null,
          gclid: null,
          dclid: null,
          srsltid: null,
        }
      : null,
    is_active_user: true,
    batch_event_index: String(user.batchIndex++),
    batch_page_id: String(user.pageId),
    batch_ordering_id: String(user.ordering),
    ...extra,
  };
}

function pageView(ms, user, [path, title]) {
  user.pageId = ms;
  user.batchIndex = 0;
  user.ordering++;
  const query = user.campaign ? '?utm_source=newsletter&utm_medium=email&utm_campaign=autumn-sale' : '';
  return row(ms, 'page_view', user, [
    str('page_location', `https://shop.example.com${path}${query}`),
    str('page_title', title),
    str('page_referrer', 'https://www.google.com/'),
    int('ga_session_id', user.sessionId),
    int('ga_session_number', user.sessionNumber),
    int('engaged_session_event', 1),
    int('batch_page_id', ms),
    int('batch_ordering_id', user.ordering),
  ]);
}

function purchase(ms, user) {
  const price = r.int(1000, 9999) / 100;
  const qty = r.int(1, 3);
  const transaction = `T-${r.int(10000, 99999)}`;
  const item = {
    item_id: 'SKU-1',
    item_name: 'Kaffeemühle „Deluxe“',
    item_brand: 'Acme',
    item_variant: null,
    item_category: 'Küche',
    price_in_usd: price * 1.1,
    price,
    quantity: String(qty),
    item_revenue: price * qty,
    coupon: null,
    item_list_index: null,
    item_params: [str('color', 'rot')],
  };
  return row(
    ms,
    'purchase',
    user,
    [str('transaction_id', transaction), str('currency', 'EUR'), dbl('value', price * qty), int('ga_session_id', user.sessionId), str('page_location', 'https://shop.example.com/checkout')],
    {
      ecommerce: {
        total_item_quantity: String(qty),
        purchase_revenue_in_usd: price * qty * 1.1,
        purchase_revenue: price * qty,
        refund_value_in_usd: null,
        refund_value: null,
        shipping_value: 4.9,
        tax_value: 2.1,
        unique_items: '1',
        transaction_id: transaction,
      },
      items: [item],
      event_value_in_usd: price * qty * 1.1,
    },
  );
}

function webUser(index, identified) {
  const firstTouch = DAYS[0] - r.int(1, 60) * DAY;
  return {
    web: true,
    pseudoId: `${r.int(100000000, 999999999)}.${Math.floor(firstTouch / 1000)}`,
    userId: identified ? `crm-${1000 + index}` : null,
    properties: identified
      ? [
          str('plan', r.pick(['free', 'pro'])),
          int('signup_year', 2024),
          { key: 'crm_score', value: { string_value: null, int_value: '9007199254740993', float_value: null, double_value: null, set_timestamp_micros: String(firstTouch * 1000) } },
        ]
      : [],
    firstTouchMicros: firstTouch * 1000 + 123,
    firstSource: r.pick([
      { name: '(direct)', medium: '(none)', source: '(direct)' },
      { name: 'autumn-sale', medium: 'email', source: 'newsletter' },
      { name: '(organic)', medium: 'organic', source: 'google' },
    ]),
    device: webDevice(),
    place: r.pick(PLACES),
    campaign: r.random() < 0.4,
    sessionId: 0,
    sessionNumber: 0,
    bundle: r.int(1, 50),
    batchIndex: 0,
    pageId: 0,
    ordering: 0,
  };
}

/** A web session: session_start (and first_visit on the first), page views, scrolls, engagement, a purchase. */
function webSession(user, start) {
  user.sessionId = Math.floor(start / 1000);
  user.sessionNumber++;
  let ms = start;
  const step = () => (ms += r.int(3_000, 240_000));
  const rows = [];
  const first = pageView(ms, user, PAGES[0]);
  if (user.sessionNumber === 1) rows.push(row(ms, 'first_visit', user, first.event_params.slice(0, 4)));
  rows.push(row(ms, 'session_start', user, first.event_params.slice(0, 5)), first);
  for (let i = 0; i < r.int(1, 3); i++) {
    const page = pageView(step(), user, r.pick(PAGES));
    rows.push(page, row(step(), 'scroll', user, [...page.event_params.slice(0, 2), int('percent_scrolled', 90), int('ga_session_id', user.sessionId)]));
  }
  rows.push(row(step(), 'user_engagement', user, [int('engagement_time_msec', r.int(1000, 90000)), int('ga_session_id', user.sessionId)]));
  if (user.userId) rows.push(purchase(step(), user));
  return rows;
}

function appSession(user, start) {
  user.sessionId = Math.floor(start / 1000);
  user.sessionNumber++;
  let ms = start;
  const rows = [];
  for (const screen of ['Player', 'Library', 'Player']) {
    ms += r.int(5_000, 120_000);
    rows.push(
      row(ms, 'screen_view', user, [
        str('firebase_screen', screen),
        str('firebase_screen_class', `${screen}ViewController`),
        int('firebase_screen_id', '-3820393876329286712'),
        int('ga_session_id', user.sessionId),
        int('ga_session_number', user.sessionNumber),
      ]),
    );
  }
  return rows;
}

/** Rows each explained on reject, and two events of one bundle at one microsecond, told apart by their parameters. */
function awkwardRows(ms, user) {
  const base = row(ms, 'select_content', user, [str('content_type', 'product'), str('item_id', 'SKU-1')]);
  const twin = { ...base, event_params: [str('content_type', 'product'), str('item_id', 'SKU-2')] };
  const legacy = (event) => {
    const copy = { ...event };
    delete copy.batch_event_index;
    delete copy.batch_page_id;
    delete copy.batch_ordering_id;
    return copy;
  };
  return [
    JSON.stringify(legacy(base)),
    JSON.stringify(legacy(twin)),
    JSON.stringify(legacy(base)), // the third is the first again
    JSON.stringify({ ...base, user_id: null, user_pseudo_id: null }),
    JSON.stringify({ ...base, event_params: { content_type: 'product' } }),
    JSON.stringify({ ...base, event_timestamp: String(ms) }), // milliseconds, not GA4's microseconds
    JSON.stringify({ ...base, event_name: null }),
    '{"event_date":"20250902","event_timestamp":"1756800000000000","event_name":"page_view","event_params":[{"key":',
  ];
}

/** The export: name -> JSON-lines text (names ending .gz are gzipped by the caller). */
export function ga4Fixtures() {
  const users = [webUser(0, true), webUser(1, false), webUser(2, true), webUser(3, false)];
  const app = { ...webUser(4, true), web: false, pseudoId: r.hex(32).toUpperCase(), campaign: false };
  const files = {};
  DAYS.forEach((day, d) => {
    const rows = [];
    users.forEach((user, i) => rows.push(...webSession(user, day + (9 + 2 * i) * 3_600_000 + r.int(0, 3_600_000))));
    rows.push(...appSession(app, day + 20 * 3_600_000));
    rows.sort((a, b) => (BigInt(a.event_timestamp) < BigInt(b.event_timestamp) ? -1 : 1));
    const lines = rows.map((event) => JSON.stringify(event));
    if (d === 1) lines.splice(10, 0, ...awkwardRows(day + 15 * 3_600_000, users[1]));
    files[`events_${dayOf(day)}${d === 1 ? '.json.gz' : '.json'}`] = lines.join('\n') + '\n';
  });
  return files;
}
