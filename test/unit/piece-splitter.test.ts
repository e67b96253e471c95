import { describe, expect, it } from 'vitest';
import { pieceText, PieceSplitter, type TextPiece } from '../../src/stage-sources/piece-splitter.js';

function split(text: string, layout: 'csv' | 'lines', chunk: number, targetChars: number, maxChars?: number): { header?: string; pieces: TextPiece[] } {
  const splitter = new PieceSplitter(layout, { targetChars, maxChars });
  const pieces: TextPiece[] = [];
  for (let i = 0; i < text.length; i += chunk) pieces.push(...splitter.push(text.slice(i, i + chunk)));
  pieces.push(...splitter.end());
  return { header: splitter.header, pieces };
}

const csv = 'event,note\r\na,"x\r\ny"\r\nb,"say ""hi"""\r\nc,plain\r\nd,"1,\n2\n3"\ne,z\n';

describe('PieceSplitter', () => {
  for (const chunk of [1, 3, 7, 1000]) {
    for (const target of [1, 10, 1000]) {
      it(`CSV: pieces rebuild the file and cut only outside quotes (chunk ${chunk}, target ${target})`, () => {
        const { header, pieces } = split(csv, 'csv', chunk, target);
        expect(header).toBe('event,note\r\n');
        expect(header! + pieces.map(pieceText).join('')).toBe(csv);
        for (const piece of pieces) {
          expect((pieceText(piece).match(/"/g) ?? []).length % 2).toBe(0);
          const before = header! + csv.slice(header!.length).slice(0, csv.indexOf(pieceText(piece), header!.length) - header!.length);
          expect(piece.firstLine).toBe((before.match(/\n/g) ?? []).length + 1);
        }
      });
    }
  }

  it('JSON lines: any line end is a cut, no header', () => {
    const text = '{"a":1}\n{"a":2}\n\n{"a":3}';
    const { header, pieces } = split(text, 'lines', 2, 5);
    expect(header).toBeUndefined();
    expect(pieces.map(pieceText).join('')).toBe(text);
    expect({ text: pieceText(pieces[0]!), firstLine: pieces[0]!.firstLine }).toEqual({ text: '{"a":1}\n', firstLine: 1 });
    expect(pieces.at(-1)!.firstLine).toBe(4);
  });

  it('skips blank lines before the header and counts them', () => {
    const { header, pieces } = split('\n\nh1,h2\nx,y\n', 'csv', 100, 1);
    expect(header).toBe('\n\nh1,h2\n');
    expect(pieces).toEqual([{ texts: ['x,y\n'], firstLine: 4 }]);
  });

  it('a file without a line end is all header', () => {
    expect(split('h1,h2', 'csv', 100, 1)).toEqual({ header: 'h1,h2\n', pieces: [] });
  });

  it('cuts a runaway quote at the bound instead of growing without end', () => {
    const text = 'h\n"open\n' + 'x\n'.repeat(50);
    const { pieces } = split(text, 'csv', 10, 5, 40);
    expect(pieces.length).toBeGreaterThan(1);
    expect(Math.max(...pieces.map((p) => pieceText(p).length))).toBeLessThan(60);
  });
});
