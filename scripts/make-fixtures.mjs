#!/usr/bin/env node
// Regenerates the bundled sample data in fixtures/ (deterministic: same output every run).
// Usage: node scripts/make-fixtures.mjs
import { writeFileSync } from 'node:fs';

let seed = 20250901;
function random() {
  // mulberry32: small, deterministic, good enough for sample data.
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (list) => list[Math.floor(random() * list.length)];

const users = [
  'ana@example.com',
  'björn@example.se',
  'chloé@example.fr',
  'dmitri@example.ru',
  'eun-ji@example.kr',
  'fatima@example.ma',
  'gus@example.com',
  'hiro@example.jp',
  'ines@example.pt',
  'jamal@example.com',
  'kofi@example.gh',
  'lena@example.de',
  'mateo@example.ar',
  'nadia@example.com',
  'olu@example.ng',
  'priya@example.in',
  'quinn@example.com',
  'rosa@example.mx',
  'sven@example.no',
  'tomás@example.es',
  'user_1001',
  'user_1002',
  'user_1003',
  'user_1004',
  'user_1005',
  'user_1006',
  'user_1007',
  'user_1008',
  'anon-7f3a9c',
  'anon-b21e44',
  'anon-0c9d12',
  'anon-e5f6a7',
];
// Each known user works at one company; anonymous ids have none.
const companies = [
  { key: 'acme', name: 'Acme Corp', industry: 'Manufacturing', employees: 1200, plan: 'enterprise' },
  { key: 'globex', name: 'Globex, Inc.', industry: 'Energy', employees: 340, plan: 'team' },
  { key: 'initech', name: 'Initech', industry: 'Software', employees: 85, plan: 'pro' },
  { key: 'müller-gmbh', name: 'Müller GmbH', industry: 'Logistics', employees: 42, plan: 'pro' },
  { key: '東京-labs', name: '東京 Labs', industry: 'Research', employees: 18, plan: 'free' },
];
const companyOf = (user) => (user.startsWith('anon-') ? undefined : companies[users.indexOf(user) % companies.length].key);

const pages = ['/', '/pricing', '/docs', '/docs/getting-started', '/blog/東京-launch', '/signup', '/app/dashboard', '/app/settings?tab=billing&plan=pro'];
const browsers = ['Chrome', 'Firefox', 'Safari', 'Edge'];
const countries = ['US', 'DE', 'FR', 'JP', 'BR', 'IN', 'GB', 'KR'];
const products = ['Widget, large', 'Gadget "Pro"', 'Café au lait mug', 'Notebook (A5)', 'Sticker pack 🎉'];
const feedback = ['Great product!\nWould buy again.', 'Shipping took a while, but support was helpful,\nthanks Zoë.', 'Ça marche très bien. 👍', 'Line one\r\nLine two with a "quote"'];

const start = Date.UTC(2025, 8, 1, 0, 0, 0); // 2025-09-01
const spanMs = 42 * 24 * 3600 * 1000; // six weeks

function csvCell(value) {
  if (value === undefined || value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function makeEvents(n) {
  const events = [];
  for (let i = 0; i < n; i++) {
    const user = pick(users);
    const ts = start + Math.floor(random() * spanMs);
    const roll = random();
    const page = pick(pages);
    const row = {
      event: roll < 0.55 ? 'pageview' : roll < 0.7 ? 'button_clicked' : roll < 0.8 ? 'signed_up' : roll < 0.9 ? 'purchase' : roll < 0.95 ? 'feedback_submitted' : 'page_view',
      distinct_id: user,
      timestamp: new Date(ts).toISOString(),
      $current_url: `https://shop.example.com${page}`,
      $browser: pick(browsers),
      country: pick(countries),
      company: companyOf(user),
    };
    if (row.event === 'purchase') {
      row.product = pick(products);
      row.price = (Math.floor(random() * 20000) / 100).toFixed(2).replace(/\.00$/, '');
      row.quantity = 1 + Math.floor(random() * 3);
    }
    if (row.event === 'button_clicked') row.button = pick(['Buy now', 'Add to cart', 'Sign up, free', 'Learn more']);
    if (row.event === 'feedback_submitted') row.comment = pick(feedback);
    if (row.event === 'signed_up')
      row.properties = JSON.stringify({ plan: pick(['free', 'pro', 'team']), referrer: pick(['google', 'newsletter', 'twitter']), utm: { source: 'spring', medium: 'email' } });
    events.push(row);
  }
  return events.sort((a, b) => (a.timestamp < b.timestamp ? -1 : 1));
}

const columns = ['event', 'distinct_id', 'timestamp', '$current_url', '$browser', 'country', 'company', 'product', 'price', 'quantity', 'button', 'comment', 'properties'];
const events = makeEvents(3000);
const csv = [columns.join(','), ...events.map((e) => columns.map((c) => csvCell(e[c])).join(','))].join('\r\n') + '\r\n';
writeFileSync('fixtures/sample-events.csv', csv);

const jsonl = makeEvents(400).map((e) => {
  const { event, distinct_id, timestamp, properties, ...rest } = e;
  return JSON.stringify({ event, distinct_id, timestamp, properties: { ...rest, ...(properties ? JSON.parse(properties) : {}) } });
});
writeFileSync('fixtures/sample-events.jsonl', jsonl.join('\n') + '\n');
const userRows = users.map((user, i) => ({
  distinct_id: user,
  email: user.includes('@') ? user : '',
  name: user.includes('@') ? user.split('@')[0].replace(/^./, (c) => c.toUpperCase()) : '',
  plan: ['free', 'pro', 'team'][i % 3],
  company: companyOf(user) ?? '',
  first_seen: new Date(start - (i + 1) * 86_400_000 * 3).toISOString().slice(0, 10),
  anon_distinct_id: i < 4 ? users[users.length - 4 + i] : '',
}));
const userColumns = ['distinct_id', 'email', 'name', 'plan', 'company', 'first_seen', 'anon_distinct_id'];
const badUsers = ['"",nobody@example.com,Nobody,free,,2025-01-01,', `${'x'.repeat(201)},long@example.com,Long,free,,2025-01-01,`];
writeFileSync(
  'fixtures/users.csv',
  [userColumns.join(','), ...userRows.filter((u) => !u.distinct_id.startsWith('anon-')).map((u) => userColumns.map((c) => csvCell(u[c])).join(',')), ...badUsers].join('\n') + '\n',
);
const companyColumns = ['group_key', 'name', 'industry', 'employees', 'plan'];
writeFileSync(
  'fixtures/companies.csv',
  [companyColumns.join(','), ...companies.map((c) => [c.key, c.name, c.industry, c.employees, c.plan].map(csvCell).join(',')), ',Nameless Ltd,Retail,3,free'].join('\n') + '\n',
);
console.log(`fixtures/sample-events.csv: ${events.length} events; fixtures/sample-events.jsonl: ${jsonl.length} events`);
