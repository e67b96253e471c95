/**
 * A recursive-descent parser for the sandbox's HogQL subset: one SELECT over one table with
 * WHERE, GROUP BY, HAVING, ORDER BY, LIMIT and OFFSET, and a subquery in FROM to be counted. Pure. Anything outside the subset that HogQL
 * would accept is refused by name rather than misread.
 */
import type { CompareOp, Expr, OrderItem, SelectItem, SelectQuery } from './hogql-ast.js';
import { tokenize, type Token } from './hogql-tokens.js';
import { QueryProblem, unsupported } from './query-problem.js';

const CLAUSE_WORDS = ['SELECT', 'FROM', 'WHERE', 'GROUP', 'BY', 'HAVING', 'ORDER', 'LIMIT', 'OFFSET', 'AS', 'AND', 'OR', 'NOT', 'IN', 'ASC', 'DESC', 'DISTINCT'];
/** HogQL keywords outside the subset, refused by name wherever they turn up. */
const UNSUPPORTED_WORDS: Record<string, string> = {
  JOIN: 'JOIN',
  INNER: 'JOIN',
  LEFT: 'JOIN',
  RIGHT: 'JOIN',
  FULL: 'JOIN',
  CROSS: 'JOIN',
  ANY: 'JOIN',
  ARRAY: 'ARRAY JOIN',
  UNION: 'UNION',
  INTERSECT: 'INTERSECT',
  EXCEPT: 'EXCEPT',
  WITH: 'WITH',
  SAMPLE: 'SAMPLE',
  PREWHERE: 'PREWHERE',
  WINDOW: 'WINDOW',
  QUALIFY: 'QUALIFY',
  SETTINGS: 'SETTINGS',
  FORMAT: 'FORMAT',
  LIKE: 'LIKE',
  ILIKE: 'ILIKE',
  BETWEEN: 'BETWEEN',
  IS: 'IS [NOT] NULL',
  CASE: 'CASE',
  OVER: 'A window function (OVER)',
  FINAL: 'FINAL',
  INTERVAL: 'INTERVAL',
  GLOBAL: 'GLOBAL',
  NULL: 'NULL',
  TRUE: 'A boolean literal',
  FALSE: 'A boolean literal',
};
const COMPARE: Record<string, CompareOp> = { '=': '=', '==': '=', '!=': '!=', '<>': '!=', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };
const ARITHMETIC = ['+', '-', '*', '/', '%', '||'];

class Parser {
  private at = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.at + offset, this.tokens.length - 1)]!;
  }

  private next(): Token {
    const token = this.peek();
    if (token.type !== 'end') this.at++;
    return token;
  }

  private isWord(word: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.type === 'word' && token.text.toUpperCase() === word;
  }

  private isSymbol(symbol: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.type === 'symbol' && token.text === symbol;
  }

  private fail(token: Token, expected: string): QueryProblem {
    const upper = token.type === 'word' ? token.text.toUpperCase() : '';
    if (UNSUPPORTED_WORDS[upper] !== undefined) return unsupported(UNSUPPORTED_WORDS[upper]!);
    const seen = token.type === 'end' ? 'end of query' : token.type === 'string' ? `'${token.text}'` : token.text;
    return new QueryProblem(`Syntax error at line ${token.line}, column ${token.column}: expected ${expected}, found ${seen}`);
  }

  private expectWord(word: string): void {
    if (!this.isWord(word)) throw this.fail(this.peek(), word);
    this.next();
  }

  private expectSymbol(symbol: string): void {
    if (!this.isSymbol(symbol)) throw this.fail(this.peek(), `'${symbol}'`);
    this.next();
  }

  /** A name: a word that is no keyword, or a quoted identifier. */
  private identifier(expected: string): string {
    const token = this.peek();
    const upper = token.text.toUpperCase();
    if (token.type === 'quoted-identifier' || (token.type === 'word' && !CLAUSE_WORDS.includes(upper) && UNSUPPORTED_WORDS[upper] === undefined)) {
      this.next();
      return token.text;
    }
    throw this.fail(token, expected);
  }

  private nonNegativeInteger(clause: string): number {
    const token = this.peek();
    if (token.type !== 'number' || !/^\d+$/.test(token.text)) throw this.fail(token, `a whole number after ${clause}`);
    this.next();
    return Number(token.text);
  }

  query(): SelectQuery {
    const query = this.select();
    if (this.peek().type !== 'end') throw this.fail(this.peek(), 'end of query');
    return query;
  }

  private select(): SelectQuery {
    if (this.isWord('WITH')) throw unsupported('WITH');
    this.expectWord('SELECT');
    const distinct = this.isWord('DISTINCT') ? (this.next(), true) : false;
    const select = this.list(() => this.selectItem());
    if (!this.isWord('FROM')) throw this.peek().type === 'end' ? unsupported('A query without FROM events') : this.fail(this.peek(), 'FROM');
    this.next();
    const query: SelectQuery = { distinct, select, ...this.table(), groupBy: [], orderBy: [] };
    if (this.isWord('WHERE')) query.where = (this.next(), this.expr());
    if (this.isWord('GROUP')) query.groupBy = (this.next(), this.expectWord('BY'), this.list(() => this.expr()));
    if (this.isWord('HAVING')) query.having = (this.next(), this.expr());
    if (this.isWord('ORDER')) query.orderBy = (this.next(), this.expectWord('BY'), this.list(() => this.orderItem()));
    Object.assign(query, this.limitAndOffset());
    return query;
  }

  private list<T>(item: () => T): T[] {
    const items = [item()];
    while (this.isSymbol(',')) {
      this.next();
      items.push(item());
    }
    return items;
  }

  private selectItem(): SelectItem {
    if (this.isSymbol('*')) throw unsupported('SELECT *');
    const expr = this.expr();
    if (this.isWord('AS')) return (this.next(), { expr, alias: this.identifier('an alias after AS') });
    const token = this.peek();
    const implicitAlias =
      token.type === 'quoted-identifier' || (token.type === 'word' && !CLAUSE_WORDS.includes(token.text.toUpperCase()) && UNSUPPORTED_WORDS[token.text.toUpperCase()] === undefined);
    return implicitAlias ? { expr, alias: this.identifier('an alias') } : { expr };
  }

  private table(): { table: string; from?: SelectQuery; tableAlias?: string } {
    if (this.isSymbol('(') && this.isWord('SELECT', 1)) {
      this.next();
      const from = this.select();
      this.expectSymbol(')');
      return { table: '', from };
    }
    if (this.isSymbol('(')) throw unsupported('A subquery');
    const table = this.identifier('a table name');
    if (this.isSymbol('(')) throw unsupported(`The table function ${table}()`);
    if (this.isWord('AS')) return (this.next(), { table, tableAlias: this.identifier('a table alias after AS') });
    const token = this.peek();
    if (token.type === 'word' && UNSUPPORTED_WORDS[token.text.toUpperCase()] !== undefined) throw this.fail(token, 'WHERE');
    const aliased = token.type === 'quoted-identifier' || (token.type === 'word' && !CLAUSE_WORDS.includes(token.text.toUpperCase()));
    return aliased ? { table, tableAlias: this.identifier('a table alias') } : { table };
  }

  private orderItem(): OrderItem {
    const expr = this.expr();
    if (this.isWord('DESC') || this.isWord('DESCENDING')) return (this.next(), { expr, descending: true });
    if (this.isWord('ASC') || this.isWord('ASCENDING')) this.next();
    if (this.isWord('NULLS') || this.isWord('COLLATE')) throw unsupported(`ORDER BY ... ${this.peek().text.toUpperCase()}`);
    return { expr, descending: false };
  }

  private limitAndOffset(): { limit?: number; offset?: number } {
    const out: { limit?: number; offset?: number } = {};
    if (this.isWord('LIMIT')) {
      this.next();
      const first = this.nonNegativeInteger('LIMIT');
      if (this.isSymbol(',')) {
        this.next();
        Object.assign(out, { offset: first, limit: this.nonNegativeInteger('LIMIT m,') });
      } else out.limit = first;
      if (this.isWord('BY')) throw unsupported('LIMIT BY');
      if (this.isWord('WITH')) throw unsupported('LIMIT ... WITH TIES');
    }
    if (this.isWord('OFFSET') && out.offset === undefined) out.offset = (this.next(), this.nonNegativeInteger('OFFSET'));
    return out;
  }

  expr(): Expr {
    const items = [this.andExpr()];
    while (this.isWord('OR')) items.push((this.next(), this.andExpr()));
    return items.length === 1 ? items[0]! : { kind: 'logic', op: 'or', items };
  }

  private andExpr(): Expr {
    const items = [this.notExpr()];
    while (this.isWord('AND')) items.push((this.next(), this.notExpr()));
    return items.length === 1 ? items[0]! : { kind: 'logic', op: 'and', items };
  }

  private notExpr(): Expr {
    if (this.isWord('NOT')) return (this.next(), { kind: 'not', expr: this.notExpr() });
    return this.comparison();
  }

  private comparison(): Expr {
    const left = this.operand();
    const token = this.peek();
    if (token.type === 'symbol' && COMPARE[token.text] !== undefined) return (this.next(), { kind: 'compare', op: COMPARE[token.text]!, left, right: this.operand() });
    if (this.isWord('IN') || (this.isWord('NOT') && this.isWord('IN', 1))) {
      const negated = this.isWord('NOT') ? (this.next(), true) : false;
      this.next();
      return { kind: 'in', negated, left, items: this.inList() };
    }
    if (token.type === 'symbol' && ARITHMETIC.includes(token.text)) throw unsupported(`Arithmetic (${token.text})`);
    return left;
  }

  private inList(): Expr[] {
    this.expectSymbol('(');
    if (this.isWord('SELECT')) throw unsupported('A subquery');
    const items = this.list(() => this.operand());
    this.expectSymbol(')');
    return items;
  }

  private operand(): Expr {
    const token = this.peek();
    if (token.type === 'string') return (this.next(), { kind: 'string', value: token.text });
    if (token.type === 'number') return (this.next(), { kind: 'number', value: Number(token.text), text: token.text });
    if (token.type === 'symbol' && token.text === '-' && this.peek(1).type === 'number') {
      this.next();
      const number = this.next();
      return { kind: 'number', value: -Number(number.text), text: `-${number.text}` };
    }
    if (token.type === 'symbol' && token.text === '(') return this.parenthesised();
    if (token.type === 'symbol' && ['[', '{'].includes(token.text)) throw unsupported(token.text === '[' ? 'An array literal' : 'A placeholder');
    if (token.type === 'word' && this.isSymbol('(', 1) && !CLAUSE_WORDS.includes(token.text.toUpperCase())) return this.call();
    return this.field();
  }

  private parenthesised(): Expr {
    this.next();
    if (this.isWord('SELECT')) throw unsupported('A subquery');
    const inner = this.expr();
    if (this.isSymbol(',')) throw unsupported('A tuple');
    this.expectSymbol(')');
    return inner;
  }

  private call(): Expr {
    const name = this.next().text;
    this.expectSymbol('(');
    const distinct = this.isWord('DISTINCT') ? (this.next(), true) : false;
    let star = false;
    let args: Expr[] = [];
    if (this.isSymbol('*')) star = (this.next(), true);
    else if (!this.isSymbol(')')) args = this.list(() => this.expr());
    this.expectSymbol(')');
    if (this.isSymbol('(')) throw unsupported(`A parametric function call (${name}(...)(...))`);
    if (this.isWord('OVER')) throw unsupported('A window function (OVER)');
    return { kind: 'call', name, distinct, star, args };
  }

  private field(): Expr {
    const chain = [this.identifier('a column, a function call or a literal')];
    for (;;) {
      if (this.isSymbol('.')) chain.push((this.next(), this.identifier('a name after "."')));
      else if (this.isSymbol('[')) {
        this.next();
        const key = this.peek();
        if (key.type !== 'string') throw unsupported("Indexing other than with a property name in quotes (properties['name'])");
        this.next();
        this.expectSymbol(']');
        chain.push(key.text);
      } else return { kind: 'field', chain };
    }
  }
}

/** Parses one query; throws a QueryProblem naming what is wrong or outside the subset. */
export function parseHogQL(text: string): SelectQuery {
  return new Parser(tokenize(text)).query();
}
