// Deterministic randomness for fixtures: the same seed always gives the same data.

/** mulberry32: small, deterministic, good enough for sample data. */
export function makeRandom(seed) {
  let state = seed;
  const random = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min, max) => min + Math.floor(random() * (max - min + 1));
  const pick = (list) => list[Math.floor(random() * list.length)];
  const hex = (n) => Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join('');
  const hyphenate = (h) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
  /** A random version-4 uuid. */
  const uuid4 = () => hyphenate(`${hex(12)}4${hex(3)}${pick(['8', '9', 'a', 'b'])}${hex(15)}`);
  /** A version-7 uuid for a time in ms, as PostHog makes them. */
  const uuid7 = (ms) => hyphenate(`${ms.toString(16).padStart(12, '0')}7${hex(3)}${pick(['8', '9', 'a', 'b'])}${hex(15)}`);
  return { random, int, pick, hex, uuid4, uuid7 };
}

/** Amplitude's and PostHog's zone-less UTC time with microseconds: `2025-09-01 09:15:02.123456`. */
export function microTime(ms, micros, separator = ' ') {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)}${separator}${iso.slice(11, 23)}${String(micros).padStart(3, '0')}`;
}

export const PLACES = [
  { city: 'Berlin', region: 'Berlin', code: 'DE', country: 'Germany' },
  { city: 'München', region: 'Bavaria', code: 'DE', country: 'Germany' },
  { city: 'São Paulo', region: 'São Paulo', code: 'BR', country: 'Brazil' },
  { city: '東京', region: 'Tokyo', code: 'JP', country: 'Japan' },
  { city: 'Paris', region: 'Île-de-France', code: 'FR', country: 'France' },
  { city: 'Austin', region: 'Texas', code: 'US', country: 'United States' },
];

export const PEOPLE = ['ana@example.com', 'björn@example.se', 'chloé@example.fr', '李雷@example.cn', 'zoë@example.co.uk', 'user_1001', 'user_1002', 'kofi@example.gh'];
