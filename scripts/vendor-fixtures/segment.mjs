// Segment raw-archive fixtures, written from Segment's Spec (common fields; track, page, screen,
// identify, group and alias calls) and its S3 destination's layout: newline-delimited JSON,
// gzipped, under segment-logs/<source-id>/<received-day>/<name>.gz. Each line is one call with
// type, messageId, userId and/or anonymousId, timestamp (the event time), originalTimestamp,
// sentAt and receivedAt, context, and properties or traits.
import { makeRandom } from './random.mjs';

const r = makeRandom(5150);
const SOURCE_ID = 'Qz8mK2pL0a';
const DAY = 86_400_000;
const DAY1 = Date.parse('2025-09-01T00:00:00Z');
const DAY2 = DAY1 + DAY;

const WEB_USERS = ['ana@example.com', 'björn@example.se', 'chloé@example.fr', '李雷@example.cn', 'zoë@example.co.uk', 'kofi@example.gh'];
const APP_USERS = ['user_1001', 'user_1002'];
const PAGES = [
  ['/', 'Home'],
  ['/pricing', 'Preise'],
  ['/blog/東京-launch', 'Tōkyō launch 🎉'],
  ['/checkout', 'Checkout'],
];

const iso = (ms) => new Date(ms).toISOString();

function webContext(path, title, extra = {}) {
  const search = r.random() < 0.3 ? '?utm_source=newsletter&utm_medium=email' : '';
  return {
    ip: `203.0.113.${r.int(1, 254)}`,
    library: { name: 'analytics.js', version: 'next-1.70.0' },
    locale: r.pick(['de-DE', 'fr-FR', 'ja-JP', 'en-GB']),
    page: { path, referrer: 'https://www.google.com/', search, title, url: `https://shop.example.com${path}${search}` },
    userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
    userAgentData: { brands: [], mobile: false, platform: 'macOS' },
    timezone: 'Europe/Berlin',
    ...(search ? { campaign: { name: 'autumn-sale', source: 'newsletter', medium: 'email' } } : {}),
    ...extra,
  };
}

function appContext() {
  return {
    app: { build: '512', name: 'Musikbox', namespace: 'com.example.musikbox', version: '3.4.1' },
    device: { id: r.uuid4().toUpperCase(), manufacturer: 'Apple', model: 'iPhone15,2', name: 'iPhone', type: 'ios' },
    library: { name: 'analytics-ios', version: '4.1.8' },
    locale: 'ja-JP',
    network: { bluetooth: false, carrier: 'NTT DOCOMO', cellular: false, wifi: true },
    os: { name: 'iOS', version: '17.5.1' },
    screen: { density: 3, height: 852, width: 393 },
    timezone: 'Asia/Tokyo',
    ip: `198.51.100.${r.int(1, 254)}`,
  };
}

const CHANNELS = { 'analytics.js': 'client', 'analytics-ios': 'mobile' };

/** One call with Segment's common fields; `skewMs` is how far the device clock was off. */
function call(type, ms, fields) {
  const skewMs = r.int(-2000, 2000);
  const sent = ms + r.int(100, 5000);
  return {
    anonymousId: undefined,
    ...fields,
    type,
    messageId: fields.messageId ?? (fields.context?.library?.name === 'analytics.js' ? `ajs-next-${ms}-${r.uuid4()}` : r.uuid4()),
    timestamp: iso(ms),
    originalTimestamp: iso(ms + skewMs),
    sentAt: iso(sent + skewMs),
    receivedAt: iso(sent + r.int(20, 400)),
    integrations: {},
    version: 2,
    channel: CHANNELS[fields.context?.library?.name] ?? 'server',
  };
}

function page(ms, ids, [path, title]) {
  return call('page', ms, {
    ...ids,
    name: title,
    properties: { path, referrer: 'https://www.google.com/', search: '', title, url: `https://shop.example.com${path}` },
    context: webContext(path, title),
  });
}

/** A web visitor: anonymous pages, then identify, then identified events; a few join a company. */
function webJourney(user, start, index) {
  const anon = r.uuid4();
  const anonymous = { anonymousId: anon };
  const known = { anonymousId: anon, userId: user };
  let ms = start;
  const step = () => (ms += r.int(5_000, 600_000));
  const calls = [page(step(), anonymous, PAGES[0]), page(step(), anonymous, r.pick(PAGES))];
  calls.push(
    call('track', step(), {
      ...anonymous,
      event: 'Product Viewed',
      properties: { product_id: `SKU-${r.int(100, 999)}`, name: 'Kaffeemühle „Deluxe“', price: 49.9 },
      context: webContext('/pricing', 'Preise'),
    }),
  );
  calls.push(
    call('identify', step(), {
      ...known,
      traits: { email: user, name: user.split('@')[0], plan: r.pick(['free', 'pro']), address: { city: 'München', country: 'DE' } },
      context: webContext('/checkout', 'Checkout'),
    }),
  );
  const b2b = index % 3 === 0;
  const groupContext = b2b ? { groupId: 'acme-gmbh' } : {};
  calls.push(
    call('track', step(), {
      ...known,
      event: 'Order Completed',
      properties: { order_id: `o-${r.int(1000, 9999)}`, revenue: r.int(1000, 99999) / 100, currency: 'EUR', products: [{ product_id: 'SKU-1', quantity: 2 }] },
      context: webContext('/checkout', 'Checkout', groupContext),
    }),
  );
  if (b2b) calls.push(call('group', step(), { ...known, groupId: 'acme-gmbh', traits: { name: 'Acme GmbH', plan: 'enterprise', employees: 120 }, context: webContext('/checkout', 'Checkout') }));
  calls.push(page(step(), known, r.pick(PAGES)));
  return calls;
}

/** An app user: screens and plays, identified from the start. */
function appJourney(user, start) {
  const ids = { anonymousId: r.uuid4().toUpperCase(), userId: user };
  let ms = start;
  const step = () => (ms += r.int(2_000, 300_000));
  const calls = [call('identify', step(), { ...ids, traits: { plan: 'family', 名前: user }, context: appContext() })];
  for (let i = 0; i < 3; i++) {
    calls.push(call('screen', step(), { ...ids, name: r.pick(['Player', 'Library', 'Search']), properties: { from_push: r.random() < 0.2 }, context: appContext() }));
    calls.push(
      call('track', step(), {
        ...ids,
        event: 'Song Played',
        properties: { song: { title: r.pick(['Für Elise', 'La Vie en rose', '上を向いて歩こう']) }, duration_ms: r.int(60_000, 300_000) },
        context: appContext(),
      }),
    );
  }
  return calls;
}

/** Calls that are valid but unusual: an anonymous identify, an alias, a server call, an offset. */
function unusualCalls(ms) {
  return [
    call('identify', ms, { anonymousId: 'anon-newsletter-7', traits: { newsletter: true }, context: webContext('/', 'Home') }),
    call('alias', ms + 1000, { previousId: 'legacy-42', userId: 'ana@example.com', context: { library: { name: 'analytics-node', version: '2.1.0' } } }),
    {
      ...call('track', ms + 2000, {
        userId: 'kofi@example.gh',
        event: 'Invoice Paid',
        properties: { amount: 1200, invoice: 'INV-2025-0042' },
        context: { library: { name: 'analytics-python', version: '2.3.2' } },
      }),
      writeKey: 'wk_fixture_never_staged',
      channel: 'server',
    },
    { ...call('track', ms + 3000, { userId: 'zoë@example.co.uk', event: 'Plan Changed', properties: { from: 'free', to: 'pro' } }), timestamp: '2025-09-01T12:00:03.000+02:00' },
    { ...call('track', ms + 4000, { userId: 'zoë@example.co.uk', event: 'Feedback Sent', properties: { text: 'Très bien' } }), messageId: undefined },
  ];
}

/** Rows each explained on reject. */
function badRows(ms) {
  const base = (extra) => JSON.stringify({ ...call('track', ms, { userId: 'ana@example.com', event: 'Broken', properties: {} }), ...extra });
  return [
    base({ type: undefined }), // no call type
    base({ type: 'batch' }), // not a call
    base({ timestamp: undefined }),
    base({ properties: 'oops' }),
    base({ event: '' }), // a track call without its event name
    base({ timestamp: '2025-09-01 10:00:00' }), // no zone
    JSON.stringify({ ...call('group', ms, { userId: 'ana@example.com', traits: { name: 'No Key Ltd' } }) }), // no groupId
    base({ userId: undefined, anonymousId: undefined }),
    '{"type":"track","event":"Cut","userId":"ana@example.com","timestamp":"2025-09-01T10:00:00.000Z","messageId":',
  ];
}

const lines = (calls) => calls.map((c) => (typeof c === 'string' ? c : JSON.stringify(c))).join('\n') + '\n';

/** The archive: name -> JSON-lines text (names ending .gz are gzipped by the caller). */
export function segmentFixtures() {
  const day1 = [];
  WEB_USERS.forEach((user, i) => day1.push(...webJourney(user, DAY1 + 8 * 3_600_000 + i * 1_800_000, i)));
  day1.push(...appJourney(APP_USERS[0], DAY1 + 9 * 3_600_000));
  day1.sort((a, b) => a.timestamp.localeCompare(b.timestamp));
  const day1Lines = day1.map((c) => JSON.stringify(c));
  day1Lines.splice(12, 0, ...unusualCalls(DAY1 + 12 * 3_600_000).map((c) => JSON.stringify(c)), ...badRows(DAY1 + 13 * 3_600_000));

  const day2 = [...appJourney(APP_USERS[1], DAY2 + 7 * 3_600_000), ...webJourney('user_1001', DAY2 + 10 * 3_600_000, 3)];
  day2.sort((a, b) => a.timestamp.localeCompare(b.timestamp));
  // Segment delivers at least once: three calls of day 1 arrive again, received later.
  const redelivered = day1.slice(0, 3).map((c) => ({ ...c, receivedAt: iso(DAY2 + 60_000) }));
  return {
    [`segment-logs/${SOURCE_ID}/${DAY1}/${DAY1 + 86_000_000}.a91f3c2e7b04.gz`]: lines(day1Lines),
    'raw-2025-09-02.jsonl': lines([...redelivered, ...day2]),
  };
}
