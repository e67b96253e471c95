/** Seeded random JSON values and texts for the JSON reader's tests. */
import { seededRandom } from '../../src/util/seeded-random.js';

export type Random = () => number;

export { seededRandom };

const STRINGS = ['', 'a', 'Zürich', '😀 emoji', 'tab\there', 'quote " and \\ backslash', '__proto__', 'constructor', ']', '}{[', '\u0000\u001f', 'line\nbreak', '日本語', '\u2028'];
const KEYS = ['a', 'b', 'event', 'properties', '__proto__', 'constructor', '10', '2', 'x y', 'é', '😀', '$insert_id', ''];
const NUMBERS = [0, 1, -1, 42, 3.5, -0.25, 1e21, 1.5e-7, 123456789012345, 0.1];

function pick<T>(random: Random, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]!;
}

/** A random JSON value without BigInts (JSON.parse reads it exactly), at most `depth` levels deep. */
export function randomValue(random: Random, depth = 4): unknown {
  const roll = random();
  if (depth > 0 && roll < 0.2) return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth - 1));
  if (depth > 0 && roll < 0.4) {
    const object: Record<string, unknown> = {};
    const n = Math.floor(random() * 5);
    for (let i = 0; i < n; i++) Object.defineProperty(object, pick(random, KEYS), { value: randomValue(random, depth - 1), enumerable: true, writable: true, configurable: true });
    return object;
  }
  if (roll < 0.6) return pick(random, STRINGS);
  if (roll < 0.8) return pick(random, NUMBERS);
  return pick(random, [true, false, null]);
}

/** JSON text of `value` with random whitespace between tokens (and sometimes pretty-printed). */
export function randomText(random: Random, value: unknown): string {
  if (random() < 0.3) return JSON.stringify(value, null, random() < 0.5 ? 2 : '\t');
  return JSON.stringify(value);
}

/** `text` with one character deleted, inserted or replaced at a random place. */
export function mutate(random: Random, text: string): string {
  const at = Math.floor(random() * (text.length + 1));
  const char = pick(random, ['{', '}', '[', ']', '"', ',', ':', '\\', '1', 'e', '-', '.', 'x', ' ', 'n', 'u']);
  const roll = random();
  if (roll < 0.33) return text.slice(0, at) + text.slice(at + 1);
  if (roll < 0.66) return text.slice(0, at) + char + text.slice(at);
  return text.slice(0, at) + char + text.slice(at + 1);
}

/** `text` cut into chunks of random sizes between 1 and `maxChunk`. */
export function randomChunks(random: Random, text: string, maxChunk: number): string[] {
  const chunks: string[] = [];
  for (let at = 0; at < text.length; ) {
    const size = 1 + Math.floor(random() * maxChunk);
    chunks.push(text.slice(at, at + size));
    at += size;
  }
  return chunks;
}
