/**
 * LZ-string's base64 form (`compression=lz64`, what older posthog-js sends), decompressed
 * from the format's public description: a bit stream read six bits per base64 character,
 * high bit first; codes of a width that grows with the dictionary; code 0 brings an 8-bit
 * character, 1 a 16-bit one, 2 ends the stream, others name a dictionary entry. The output is
 * UTF-16 text, capped at `maxUnits` code units.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';
const VALUE_OF = new Map([...ALPHABET].map((c, i) => [c, i]));

export type LzResult = { text: string } | { error: 'invalid' | 'too_large' };

class BitReader {
  private index = 0;
  private value = 0;
  private mask = 0;

  constructor(private readonly input: string) {}

  /** Whether the input ran out before the stream's end code. */
  exhausted = false;

  bits(count: number): number {
    let result = 0;
    for (let bit = 0; bit < count; bit++) {
      if (this.mask === 0) {
        if (this.index >= this.input.length) {
          this.exhausted = true;
          return 0;
        }
        this.value = VALUE_OF.get(this.input[this.index++]!) ?? 0;
        this.mask = 32;
      }
      if ((this.value & this.mask) !== 0) result |= 1 << bit;
      this.mask >>= 1;
    }
    return result;
  }
}

function literal(reader: BitReader, code: number): string {
  return String.fromCharCode(reader.bits(code === 0 ? 8 : 16));
}

export function decompressLz64(input: string, maxUnits: number): LzResult {
  if (input === '') return { text: '' };
  const reader = new BitReader(input);
  const head = reader.bits(2);
  if (reader.exhausted || head > 2) return { error: 'invalid' };
  if (head === 2) return { text: '' };
  // Codes 0, 1 and 2 are the commands; entries start at 3.
  const dictionary: string[] = ['', '', '', literal(reader, head)];
  let width = 3;
  const grow = (): void => {
    if (dictionary.length === 1 << width) width++;
  };
  let w = dictionary[3]!;
  const out: string[] = [w];
  let units = w.length;
  for (;;) {
    let code = reader.bits(width);
    if (reader.exhausted) return { error: 'invalid' };
    if (code === 2) return { text: out.join('') };
    if (code < 2) {
      dictionary.push(literal(reader, code));
      code = dictionary.length - 1;
      grow();
    }
    const entry = code < dictionary.length ? dictionary[code]! : code === dictionary.length ? w + w[0] : undefined;
    if (entry === undefined) return { error: 'invalid' };
    units += entry.length;
    if (units > maxUnits) return { error: 'too_large' };
    out.push(entry);
    dictionary.push(w + entry[0]);
    grow();
    w = entry;
  }
}
