// PostHog event-export fixtures, written from PostHog's batch-export documentation (events model,
// JSONLines): uuid, event, distinct_id, person_id, properties and person_properties as objects,
// elements_chain, timestamp / created_at / _inserted_at as ISO strings with microseconds.
import { makeRandom, microTime, PEOPLE, PLACES } from './random.mjs';

const r = makeRandom(90210);
const DAY = 86_400_000;
const persons = new Map(PEOPLE.map((id) => [id, r.uuid4()]));

function commonProperties(ms, path) {
  const place = r.pick(PLACES);
  return {
    $lib: 'web',
    $lib_version: '1.166.0',
    $browser: r.pick(['Chrome', 'Firefox', 'Safari']),
    $os: r.pick(['Mac OS X', 'Windows']),
    $current_url: `https://shop.example.com${path}`,
    $host: 'shop.example.com',
    $pathname: path,
    $session_id: r.uuid7(ms - r.int(0, 900_000)),
    $ip: `198.51.100.${r.int(1, 254)}`,
    $geoip_city_name: place.city,
    $geoip_country_code: place.code,
    $geoip_country_name: place.country,
  };
}

function eventAt(ms) {
  const user = r.pick(PEOPLE);
  const path = r.pick(['/', '/pricing', '/blog/東京-launch', '/checkout']);
  const base = commonProperties(ms, path);
  const roll = r.random();
  let event = '$pageview';
  let properties = { ...base, title: r.pick(['Home', 'Prix', '東京 launch']) };
  let elements = '';
  if (roll < 0.2) {
    event = '$autocapture';
    properties = { ...base, $event_type: 'click' };
    elements = 'button.btn.btn-primary:attr__class="btn btn-primary"nth-child="2"nth-of-type="1"text="Jetzt kaufen";form:nth-child="1"';
  } else if (roll < 0.35) {
    event = 'order completed';
    properties = { ...base, order: { id: `o-${r.int(1000, 9999)}`, lines: [{ sku: 'SKU-1', qty: 2 }], total: r.int(100, 9999) / 100 }, note: 'Livraison rapide, merci ! 🎉' };
  } else if (roll < 0.42) {
    event = '$identify';
    properties = { ...base, $anon_distinct_id: r.uuid7(ms - DAY), $set: { email: user.includes('@') ? user : `${user}@example.com`, name: user.split('@')[0] } };
  } else if (roll < 0.45) {
    event = '$groupidentify';
    properties = { ...base, $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme GmbH', plan: 'enterprise' } };
  }
  const created = ms + r.int(100, 3000);
  return {
    uuid: r.uuid7(ms),
    event,
    properties,
    elements_chain: elements,
    set: {},
    set_once: {},
    distinct_id: user,
    team_id: 2,
    ip: base.$ip,
    site_url: '',
    timestamp: `${microTime(ms, r.int(0, 999), 'T')}Z`,
    created_at: `${microTime(created, 0, 'T')}Z`,
    person_id: persons.get(user),
    person_properties: { email: user },
    _inserted_at: `${microTime(created + 1000, 0, 'T')}Z`,
  };
}

function eventsBetween(startMs, days, count) {
  return Array.from({ length: count }, () => startMs + Math.floor(r.random() * days * DAY))
    .sort((a, b) => a - b)
    .map(eventAt);
}

const lines = (records) => records.map((record) => (typeof record === 'string' ? record : JSON.stringify(record))).join('\n') + '\n';

/** Two export files: the first with rows each explained on reject, the second gzipped. */
export function posthogFixtures() {
  const first = eventsBetween(Date.UTC(2025, 8, 1), 14, 160);
  const t = Date.UTC(2025, 8, 5, 12);
  const awkward = [
    { ...eventAt(t), uuid: 'not-a-uuid' },
    { ...eventAt(t), distinct_id: null },
    '{"uuid":"0199a1b2-0000-7000-8000-000000000001","event":"$pageview","distinct_id":"ana@example.com","timestamp":"2025-09-05T12:',
    { ...eventAt(t), timestamp: '2999-01-01T00:00:00.000000Z' },
    { ...eventAt(t), event: '' },
    { ...eventAt(t), uuid: null }, // no uuid: one is derived from the record
  ];
  awkward.forEach((row, i) => first.splice(20 + i * 20, 0, row));
  const second = eventsBetween(Date.UTC(2025, 8, 15), 10, 90);
  second[3] = { ...second[3], properties: JSON.stringify(second[3].properties) }; // as Parquet-derived exports write it
  second[7] = { ...second[7], timestamp: second[7].timestamp.replace('T', ' ').replace('Z', '') }; // no zone: UTC
  return { 'events-2025-09-01_2025-09-14.jsonl': lines(first), 'events-2025-09-15_2025-09-24.jsonl.gz': lines(second) };
}
