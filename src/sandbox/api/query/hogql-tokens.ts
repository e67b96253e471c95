/**
 * Splits HogQL text into tokens, each with its line and column so a refusal can say where.
 * Pure. Strings are single-quoted (backslash escapes, '' for a quote); identifiers may be
 * backquoted or double-quoted, as in HogQL and ClickHouse.
 */
import { QueryProblem } from './query-problem.js';

export type TokenType = 'word' | 'quoted-identifier' | 'string' | 'number' | 'symbol' | 'end';

export interface Token {
  type: TokenType;
  /** The word, the decoded string or identifier, the number's text, or the symbol. */
  text: string;
  line: number;
  column: number;
}

const SYMBOLS = ['==', '!=', '<>', '<=', '>=', '=', '<', '>', '(', ')', ',', '.', '[', ']', '*', '+', '-', '/', '%', ';', '{', '}', '?', ':', '|'];
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0', b: '\b', f: '\f', '\\': '\\', "'": "'", '"': '"', '`': '`' };

class Cursor {
  at = 0;
  line = 1;
  column = 1;
  constructor(readonly text: string) {}

  peek(offset = 0): string {
    return this.text[this.at + offset] ?? '';
  }

  advance(count = 1): string {
    const taken = this.text.slice(this.at, this.at + count);
    for (const ch of taken) {
      if (ch === '\n') {
        this.line++;
        this.column = 1;
      } else this.column++;
    }
    this.at += count;
    return taken;
  }

  syntaxError(line: number, column: number, message: string): QueryProblem {
    return new QueryProblem(`Syntax error at line ${line}, column ${column}: ${message}`);
  }
}

/** A quoted run ending at `quote`; a doubled quote or a backslash escape stands for one character. */
function readQuoted(cursor: Cursor, quote: string): string {
  const { line, column } = cursor;
  cursor.advance();
  let out = '';
  for (;;) {
    const ch = cursor.peek();
    if (ch === '') throw cursor.syntaxError(line, column, `unterminated ${quote === "'" ? 'string' : 'identifier'}`);
    if (ch === '\\') {
      const next = cursor.peek(1);
      out += ESCAPES[next] ?? next;
      cursor.advance(2);
    } else if (ch === quote && cursor.peek(1) === quote) {
      out += quote;
      cursor.advance(2);
    } else if (ch === quote) {
      cursor.advance();
      return out;
    } else out += cursor.advance();
  }
}

function readNumber(cursor: Cursor): string {
  const match = /^(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)/.exec(cursor.text.slice(cursor.at));
  return cursor.advance(match![0].length);
}

function skipSpaceAndComments(cursor: Cursor): void {
  for (;;) {
    const ch = cursor.peek();
    if (/\s/.test(ch)) cursor.advance();
    else if (ch === '-' && cursor.peek(1) === '-') while (cursor.peek() !== '' && cursor.peek() !== '\n') cursor.advance();
    else return;
  }
}

function readToken(cursor: Cursor): Token {
  const { line, column } = cursor;
  const ch = cursor.peek();
  if (ch === "'") return { type: 'string', text: readQuoted(cursor, "'"), line, column };
  if (ch === '`' || ch === '"') return { type: 'quoted-identifier', text: readQuoted(cursor, ch), line, column };
  if (/\d/.test(ch) || (ch === '.' && /\d/.test(cursor.peek(1)))) return { type: 'number', text: readNumber(cursor), line, column };
  const word = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(cursor.text.slice(cursor.at));
  if (word) return { type: 'word', text: cursor.advance(word[0].length), line, column };
  const symbol = SYMBOLS.find((s) => cursor.text.startsWith(s, cursor.at));
  if (symbol) return { type: 'symbol', text: cursor.advance(symbol.length), line, column };
  throw cursor.syntaxError(line, column, `unexpected character ${JSON.stringify(ch)}`);
}

/** The tokens of `text`, ending with one 'end' token; throws a QueryProblem on a lexical error. */
export function tokenize(text: string): Token[] {
  const cursor = new Cursor(text);
  const tokens: Token[] = [];
  for (;;) {
    skipSpaceAndComments(cursor);
    if (cursor.peek() === '') {
      tokens.push({ type: 'end', text: '', line: cursor.line, column: cursor.column });
      return tokens;
    }
    tokens.push(readToken(cursor));
  }
}
