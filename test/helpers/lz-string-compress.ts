/**
 * LZ-string's compressor, base64 form, written from the format's public description, so
 * tests can send what older posthog-js sends with `compression=lz64`. Words are looked up
 * in a growing dictionary; a new character is sent as code 0 (8 bits) or 1 (16 bits) and
 * code 2 ends the stream; codes widen by a bit each time the dictionary doubles. Bits go
 * six to a base64 character, high bit first.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';

class BitWriter {
  private value = 0;
  private filled = 0;
  readonly out: string[] = [];

  bits(value: number, count: number): void {
    for (let i = 0; i < count; i++) {
      this.value = (this.value << 1) | ((value >> i) & 1);
      if (++this.filled === 6) {
        this.out.push(ALPHABET[this.value]!);
        this.value = 0;
        this.filled = 0;
      }
    }
  }

  flush(): string {
    while (this.filled !== 0) this.bits(0, 1);
    const text = this.out.join('');
    return text + '='.repeat((4 - (text.length % 4)) % 4);
  }
}

export function compressToLz64(input: string): string {
  const dictionary = new Map<string, number>();
  const pending = new Set<string>();
  const writer = new BitWriter();
  let size = 3;
  let width = 2;
  let enlargeIn = 2;
  const shrink = (): void => {
    if (--enlargeIn === 0) [enlargeIn, width] = [2 ** width, width + 1];
  };
  const emit = (w: string): void => {
    if (pending.has(w)) {
      const code = w.charCodeAt(0);
      writer.bits(code < 256 ? 0 : 1, width);
      writer.bits(code, code < 256 ? 8 : 16);
      shrink();
      pending.delete(w);
    } else {
      writer.bits(dictionary.get(w)!, width);
    }
    shrink();
  };
  let w = '';
  for (const c of input.split('')) {
    if (!dictionary.has(c)) {
      dictionary.set(c, size++);
      pending.add(c);
    }
    if (dictionary.has(w + c)) {
      w += c;
      continue;
    }
    emit(w);
    dictionary.set(w + c, size++);
    w = c;
  }
  if (w !== '') emit(w);
  writer.bits(2, width);
  return writer.flush();
}
