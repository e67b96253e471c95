import { describe, expect, it } from 'vitest';
import { CsvTokenizer, type CsvItem, type CsvSyntax } from '../../src/sources/csv-tokenizer.js';
import { countLineEnds } from '../../src/sources/line-ends.js';
import { pieceText, PieceSplitter, type PieceSplitterOptions, type TextLayout, type TextPiece } from '../../src/stage-sources/piece-splitter.js';
import { seededRandom } from '../helpers/random-json.js';

function split(text: string, layout: TextLayout, chunk: number, targetChars: number, options: PieceSplitterOptions = {}): { header?: string; pieces: TextPiece[] } {
  const splitter = new PieceSplitter(layout, { targetChars, ...options });
  const pieces: TextPiece[] = [];
  for (let i = 0; i < text.length; i += chunk) pieces.push(...splitter.push(text.slice(i, i + chunk)));
  pieces.push(...splitter.end());
  return { header: splitter.header, pieces };
}

function tokenize(text: string, syntax: CsvSyntax): CsvItem[] {
  const tokenizer = new CsvTokenizer(syntax);
  const out: CsvItem[] = [];
  tokenizer.push(text, out);
  tokenizer.end(out);
  return out;
}

/** The records of each piece read alone after the header, with their file lines: what workers see. */
function piecewise(header: string, pieces: TextPiece[], syntax: CsvSyntax): CsvItem[] {
  const out: CsvItem[] = [];
  for (const piece of pieces) {
    const offset = piece.firstLine - 1 - countLineEnds(header);
    for (const item of tokenize(header + pieceText(piece), syntax).slice(1)) out.push({ ...item, line: item.line + offset });
  }
  return out;
}

const csv = 'event,note\r\na,"x\r\ny"\r\nb,"say ""hi"""\r\nc,plain\r\nd,"1,\n2\n3"\ne,z\n';

describe('PieceSplitter', () => {
  for (const chunk of [1, 3, 7, 1000]) {
    for (const target of [1, 10, 1000]) {
      it(`CSV: pieces rebuild the file and cut only between records (chunk ${chunk}, target ${target})`, () => {
        const { header, pieces } = split(csv, 'csv', chunk, target);
        expect(header).toBe('event,note\r\n');
        expect(header! + pieces.map(pieceText).join('')).toBe(csv);
        expect(piecewise(header!, pieces, {})).toEqual(tokenize(csv, {}).slice(1));
      });
    }
  }

  it('CSV: a piece ends only where the tokenizer ends a record, whatever the text (random files)', () => {
    const random = seededRandom(7);
    const parts = ['a', 'b c', ' ', '"', '""', ',', ';', '\t', '\n', '\r\n', '\r', 'x"y', '"q,"', '\u00e9', '🎉'];
    for (let run = 0; run < 300; run++) {
      const syntax: CsvSyntax = { delimiter: [',', ';', '\t'][run % 3], trim: run % 2 === 0 };
      let body = '';
      for (let i = 0; i < 60; i++) body += parts[Math.floor(random() * parts.length)];
      const text = `h1${syntax.delimiter}h2\n${body}`;
      const chunk = 1 + Math.floor(random() * 9);
      const { header, pieces } = split(text, 'csv', chunk, 1 + Math.floor(random() * 12), syntax);
      expect(header! + pieces.map(pieceText).join('')).toBe(text);
      expect(piecewise(header!, pieces, syntax)).toEqual(tokenize(text, syntax).slice(1));
    }
  });

  it('JSON lines: any line end is a cut (LF, CRLF or a lone CR), no header', () => {
    const text = '{"a":1}\n{"a":2}\r\n\r{"a":3}\r{"a":4}';
    for (const chunk of [1, 2, 5, 100]) {
      const { header, pieces } = split(text, 'lines', chunk, 5);
      expect(header).toBeUndefined();
      expect(pieces.map(pieceText).join('')).toBe(text);
      if (chunk <= 2) expect({ text: pieceText(pieces[0]!), firstLine: pieces[0]!.firstLine }).toEqual({ text: '{"a":1}\n', firstLine: 1 });
      for (const piece of pieces) {
        // A piece never starts with the LF of a CRLF cut in two.
        expect(pieceText(piece).startsWith('\n') && text.indexOf(pieceText(piece)) > 0 && text[text.indexOf(pieceText(piece)) - 1] === '\r').toBe(false);
      }
      expect(pieces.at(-1)!.firstLine).toBe(5);
    }
  });

  it('skips blank lines before the header and counts them', () => {
    const { header, pieces } = split('\n\nh1,h2\nx,y\n', 'csv', 100, 1);
    expect(header).toBe('\n\nh1,h2\n');
    expect(pieces).toEqual([{ texts: ['x,y\n'], firstLine: 4, end: { chars: 12, line: 5 } }]);
  });

  it('with trimming, a line of spaces before the header is blank too', () => {
    expect(split('  \nh1,h2\nx,y\n', 'csv', 100, 1, { trim: true }).header).toBe('  \nh1,h2\n');
  });

  it('a file without a line end is all header', () => {
    expect(split('h1,h2', 'csv', 100, 1)).toEqual({ header: 'h1,h2\n', pieces: [] });
  });

  it('a header ended by a lone CR (classic Mac)', () => {
    const { header, pieces } = split('h1,h2\rx,y\rz,w\r', 'csv', 3, 1);
    expect(header).toBe('h1,h2\r');
    expect(pieces.map((p) => [p.firstLine, pieceText(p)])).toEqual([
      [2, 'x,y\r'],
      [3, 'z,w\r'],
    ]);
  });

  it('a quote inside an unquoted value is text: it does not hold the rest of the file in one record', () => {
    const text = `h,size\n${'a,5" screen\n'.repeat(40)}`;
    const { pieces } = split(text, 'csv', 7, 30, { maxRecordChars: 100 });
    expect(pieces.length).toBeGreaterThan(10);
    expect(pieces.every((p) => p.rejects === undefined)).toBe(true);
  });
});

describe('PieceSplitter: records longer than the bound', () => {
  it('JSON lines: a long line is skipped unread, rejected too_large with its size, and the lines after it go on', () => {
    const long = `{"a":"${'é'.repeat(300)}"}`;
    const text = `{"n":1}\n${long}\r\n{"n":2}\n`;
    for (const chunk of [1, 7, 64, 1000]) {
      const { pieces } = split(text, 'lines', chunk, 10, { maxRecordChars: 100 });
      const rejects = pieces.flatMap((p) => p.rejects ?? []);
      expect(rejects).toEqual([
        {
          line: 2,
          raw: long.slice(0, 200),
          problem: { reason: 'too_large', field: '', message: `the line is ${Buffer.byteLength(long)} bytes; an event can be at most 1 MiB (PostHog drops larger ones), so it was skipped unread` },
        },
      ]);
      const texts = pieces.filter((p) => p.rejects === undefined);
      expect(texts.map(pieceText).join('')).toBe('{"n":1}\n{"n":2}\n');
      expect(texts.at(-1)!.firstLine).toBe(3);
    }
  });

  it('the head kept never holds more than its bound, whatever the length of the line', () => {
    const splitter = new PieceSplitter('lines', { maxRecordChars: 1000 });
    const pieces: TextPiece[] = [];
    for (let i = 0; i < 2000; i++) pieces.push(...splitter.push('x'.repeat(1000)));
    pieces.push(...splitter.push('\nafter\n'), ...splitter.end());
    expect(pieces[0]!.rejects![0]!).toMatchObject({ line: 1, raw: 'x'.repeat(200), problem: { reason: 'too_large', message: expect.stringContaining('2,000,000 bytes') } });
    expect(pieces.slice(1).map((p) => [p.firstLine, pieceText(p)])).toEqual([[2, 'after\n']]);
  });

  it('CSV: a long record on one line is too_large; the records after it are read', () => {
    const text = `h1,h2\na,1\nb,"${'x'.repeat(300)}"\nc,3\n`;
    for (const chunk of [1, 13, 1000]) {
      const { pieces } = split(text, 'csv', chunk, 5, { maxRecordChars: 100 });
      expect(pieces.flatMap((p) => p.rejects ?? [])).toMatchObject([{ line: 3, problem: { reason: 'too_large', message: expect.stringContaining('the record is 304 bytes') } }]);
      const texts = pieces.filter((p) => p.rejects === undefined);
      expect(texts.map(pieceText).join('')).toBe('a,1\nc,3\n');
      expect(texts.at(-1)!.firstLine).toBe(4);
    }
  });

  it('CSV: a quote still open past the bound is an unclosed quote: its line is rejected and reading goes on at the next', () => {
    const text = `h\n"open\n${'x\n'.repeat(80)}`;
    const { pieces } = split(text, 'csv', 10, 5, { maxRecordChars: 40 });
    expect(pieces.flatMap((p) => p.rejects ?? [])).toMatchObject([{ line: 2, raw: '"open', problem: { reason: 'bad_csv', message: expect.stringContaining('unclosed quote') } }]);
    const texts = pieces.filter((p) => p.rejects === undefined);
    expect(texts.map(pieceText).join('')).toBe('x\n'.repeat(80));
    expect(texts[0]!.firstLine).toBe(3);
  });
});

describe('PieceSplitter: JSON arrays', () => {
  const array = '[\n  {"event": "a",\n   "n": 1},\n  {"event": "b"}, {"event": "c"}\n]\n';

  it('cuts between elements, each with the line it starts on', () => {
    for (const chunk of [1, 5, 1000]) {
      const { pieces } = split(array, 'array', chunk, 1);
      expect(pieces.flatMap((p) => p.texts.map((text, i) => [p.elementLines![i], text]))).toEqual([
        [2, '{"event": "a",\n   "n": 1}'],
        [4, '{"event": "b"}'],
        [4, '{"event": "c"}'],
      ]);
    }
  });

  it('an element too large is too_large; a broken array is one bad_json naming the line', () => {
    const text = `[{"a":"${'x'.repeat(300)}"},\n{"b":1}\n{"c":2}]`;
    const { pieces } = split(text, 'array', 16, 1, { maxRecordChars: 100 });
    expect(pieces.flatMap((p) => p.rejects ?? [])).toMatchObject([
      { line: 1, problem: { reason: 'too_large', message: expect.stringContaining('the array element is 308 bytes') } },
      { line: 3, problem: { reason: 'bad_json', message: expect.stringContaining("expected ',' or ']' after the element that starts at line 2") } },
    ]);
    expect(pieces.flatMap((p) => p.texts)).toEqual(['{"b":1}']);
  });
});

describe('PieceSplitter: a long record that ends in the text that makes it long', () => {
  it('is too_large as well, whatever the sizes of the texts', () => {
    const long = 'y'.repeat(150);
    const text = `{"n":1}\n${long}\n{"n":2}\n`;
    for (const chunk of [60, 100, 140, 1000]) {
      const { pieces } = split(text, 'lines', chunk, 1000, { maxRecordChars: 100 });
      expect(pieces.flatMap((p) => p.rejects ?? [])).toMatchObject([{ line: 2, raw: long.slice(0, 150), problem: { message: expect.stringContaining('the line is 150 bytes') } }]);
      expect(pieces.filter((p) => p.rejects === undefined).map((p) => [p.firstLine, pieceText(p)])).toEqual(
        chunk === 1000
          ? [
              [1, '{"n":1}\n'],
              [3, '{"n":2}\n'],
            ]
          : expect.anything(),
      );
      expect(
        pieces
          .filter((p) => p.rejects === undefined)
          .map(pieceText)
          .join(''),
      ).toBe('{"n":1}\n{"n":2}\n');
    }
  });
});

/** What a splitter's pieces hold, piece boundaries aside: records with their lines, and rejects. */
function contents(header: string | undefined, pieces: readonly TextPiece[], layout: TextLayout, syntax: CsvSyntax): unknown[] {
  const out: unknown[] = [];
  for (const piece of pieces) {
    for (const reject of piece.rejects ?? []) out.push(['reject', reject.line, reject.problem.reason]);
    if (piece.texts.length === 0) continue;
    if (layout === 'csv') {
      for (const item of piecewise(header!, [piece], syntax)) out.push(['record', item.line, 'fields' in item ? item.fields : item.raw]);
      continue;
    }
    const lines = pieceText(piece).split(/\r\n|\r|\n/);
    if (lines.at(-1) === '') lines.pop();
    lines.forEach((line, i) => out.push(['line', piece.firstLine + i, line]));
  }
  return out;
}

/** Pushes `text` from `from` on, in chunks ending where a read from the start would end them (as a resumed file is read). */
function pushAll(splitter: PieceSplitter, text: string, chunk: number, from = 0): TextPiece[] {
  const pieces: TextPiece[] = [];
  for (let i = from; i < text.length; i = (Math.floor(i / chunk) + 1) * chunk) pieces.push(...splitter.push(text.slice(i, (Math.floor(i / chunk) + 1) * chunk)));
  return [...pieces, ...splitter.end()];
}

describe('PieceSplitter: resuming after a piece', () => {
  it('from any piece end gives the same records, lines and rejects as reading on (random files, long records, CR line ends)', () => {
    const random = seededRandom(11);
    const parts = ['a', 'b,c', ' ', '"', ',', '\n', '\r\n', '\r', 'é', '🎉', 'x'.repeat(30), '"q\nr"'];
    for (let run = 0; run < 200; run++) {
      const layout: TextLayout = run % 2 === 0 ? 'csv' : 'lines';
      const syntax: CsvSyntax = { trim: run % 3 === 0 };
      let body = '';
      for (let i = 0; i < 50; i++) body += parts[Math.floor(random() * parts.length)];
      const text = layout === 'csv' ? `h1,h2\r\n${body}` : body;
      const options = { ...syntax, targetChars: 1 + Math.floor(random() * 15), maxRecordChars: 25 };
      const whole = new PieceSplitter(layout, options);
      const chunk = 1 + Math.floor(random() * 9);
      const pieces = pushAll(whole, text, chunk);
      const expected = contents(whole.header, pieces, layout, syntax);
      expect(whole.consumed).toBe(text.length);
      for (const [k, piece] of pieces.entries()) {
        const end = piece.end!;
        // (A last record without a line end may count one: nothing follows it.)
        if (end.chars < text.length) expect(end.line).toBe(1 + countLineEnds(text.slice(0, end.chars)));
        const resumed = new PieceSplitter(layout, { ...options, resume: { chars: end.chars, line: end.line, header: whole.header ?? null, afterCr: text[end.chars - 1] === '\r' } });
        const rest = pushAll(resumed, text, chunk, end.chars);
        expect(contents(whole.header, [...pieces.slice(0, k + 1), ...rest], layout, syntax)).toEqual(expected);
        expect(resumed.consumed).toBe(text.length);
      }
    }
  });

  it('counts the header, skipped records and a dropped line feed in the text read', () => {
    const text = `h\r\n${'y'.repeat(40)}\r\nz\n`;
    const splitter = new PieceSplitter('csv', { targetChars: 1, maxRecordChars: 20 });
    const pieces = pushAll(splitter, text, 22);
    expect(pieces.map((p) => p.end)).toEqual([
      { chars: 3 + 41, line: 3 },
      { chars: text.length, line: 4 },
    ]);
    expect(splitter.consumed).toBe(text.length);
  });
});
