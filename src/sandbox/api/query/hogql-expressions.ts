/**
 * Turns one HogQL expression into SQLite SQL over one of the sandbox's tables, with its type.
 * Pure. Every value the query text supplies becomes a named parameter; only fixed SQL written
 * here is ever spliced, so no query text reaches SQLite as SQL.
 */
import type { CompareOp, Expr } from './hogql-ast.js';
import { parseDateLiteral, parseDateTimeLiteral, parseUuidLiteral, printIdentifier, printString } from './hogql-literals.js';
import { QueryProblem, unsupported } from './query-problem.js';
import { DATETIME, type TableDef } from './hogql-tables.js';
import { ARGMAX_SQL } from './hogql-argmax.js';

import type { ValueKind } from './hogql-ast.js';

export type { ValueKind };

export interface Compiled {
  sql: string;
  kind: ValueKind;
  /** The ClickHouse type PostHog reports in `types`. */
  type: string;
  /** Contains an aggregate function. */
  aggregate: boolean;
  /** The expression printed back as HogQL: column names, and matching SELECT items to GROUP BY keys. */
  hogql: string;
  /** Set for constants, so a comparison can read them as the other side's type. */
  constant?: { kind: 'string' | 'number' | 'datetime' | 'date'; value: string | number };
  /** An aggregate function call itself (its arguments need no GROUP BY). */
  aggregateCall?: true;
  children: Compiled[];
}

export class Params {
  readonly values: Record<string, string | number> = {};
  private count = 0;

  add(value: string | number): string {
    const name = `p${this.count++}`;
    this.values[name] = value;
    return `@${name}`;
  }
}

export interface Scope {
  params: Params;
  /** Names a field may be prefixed with: `events` and the query's table alias. */
  tableNames: string[];
  /** SELECT aliases usable in WHERE, GROUP BY and ORDER BY; null while compiling SELECT itself. */
  aliases: Map<string, Expr> | null;
  /** The table the query reads. */
  table: TableDef;
}

/** What min() and max() give over no rows in ClickHouse: the type's default, not NULL. */
const EMPTY_DEFAULTS: Partial<Record<ValueKind, string | number>> = { datetime: '1970-01-01T00:00:00.000000Z', date: '1970-01-01', text: '', uuid: '00000000-0000-0000-0000-000000000000', number: 0 };

function leaf(fields: Pick<Compiled, 'sql' | 'kind' | 'type' | 'hogql'>, constant?: Compiled['constant']): Compiled {
  return { ...fields, aggregate: false, children: [], ...(constant ? { constant } : {}) };
}

function numberType(value: number): string {
  if (!Number.isInteger(value)) return 'Float64';
  const bits = [8, 16, 32, 64].find((b) => (value >= 0 ? value < 2 ** b : value >= -(2 ** (b - 1))))!;
  return `${value >= 0 ? 'UInt' : 'Int'}${bits}`;
}

/** A property's value as PostHog reads it: the raw JSON text, quotes of a string removed, null for missing or JSON null. */
function propertySql(path: string[], params: Params): string {
  if (path.some((key) => key.includes('"'))) throw unsupported('A property name containing a double quote');
  const raw = `(events.properties -> ${params.add('$' + path.map((key) => `."${key}"`).join(''))})`;
  return `(CASE WHEN ${raw} IS NULL OR ${raw} = 'null' THEN NULL WHEN ${raw} LIKE '"%"' THEN substr(${raw}, 2, length(${raw}) - 2) ELSE ${raw} END)`;
}

function compileField(chain: string[], scope: Scope): Compiled {
  const [first, ...rest] = chain;
  if (scope.aliases !== null && chain.length === 1 && scope.aliases.has(first!)) return compileExpr(scope.aliases.get(first!)!, { ...scope, aliases: null });
  const parts = chain.length > 1 && scope.tableNames.includes(first!) ? rest : chain;
  const [name, ...path] = parts as [string, ...string[]];
  const hogql = chain.map(printIdentifier).join('.');
  const { columns, missing, properties } = scope.table;
  if (name === 'properties' && properties && path.length > 0) return leaf({ sql: propertySql(path, scope.params), kind: 'nullable-text', type: 'Nullable(String)', hogql });
  if (Object.hasOwn(columns, name) && path.length === 0) return leaf({ ...columns[name]!, hogql });
  if (missing.includes(name)) throw unsupported(`The field ${name}`);
  throw new QueryProblem(`Field not found: ${parts.join('.')}`);
}

function single(name: string, args: Compiled[], isAggregate: boolean): Compiled {
  if (args.length !== 1) throw new QueryProblem(`Function '${name}' expects 1 argument, found ${args.length}.`);
  if (isAggregate && args[0]!.aggregate) throw new QueryProblem(`Aggregate function ${args[0]!.hogql} is found inside another aggregate function in query.`);
  return args[0]!;
}

function toDate(arg: Compiled, hogql: string, params: Params): Compiled {
  if (arg.constant?.kind === 'string' || arg.constant?.kind === 'date' || arg.constant?.kind === 'datetime') {
    const value = parseDateLiteral(String(arg.constant.value));
    return leaf({ sql: params.add(value), kind: 'date', type: 'Date', hogql }, { kind: 'date', value });
  }
  if (arg.kind === 'datetime' || arg.kind === 'date') return { sql: `substr(${arg.sql}, 1, 10)`, kind: 'date', type: 'Date', aggregate: arg.aggregate, hogql, children: [arg] };
  throw unsupported(`toDate() of ${arg.hogql}`);
}

function toDateTime(arg: Compiled, hogql: string, params: Params): Compiled {
  if (arg.constant?.kind === 'string') {
    const value = parseDateTimeLiteral(String(arg.constant.value));
    return leaf({ sql: params.add(value), kind: 'datetime', type: DATETIME, hogql }, { kind: 'datetime', value });
  }
  if (arg.kind === 'datetime') return { sql: arg.sql, kind: 'datetime', type: DATETIME, aggregate: arg.aggregate, hogql, children: [arg] };
  throw unsupported(`toDateTime() of ${arg.hogql}`);
}

function aggregate(sql: string, kind: ValueKind, type: string, hogql: string, arg?: Compiled): Compiled {
  return { sql, kind, type, aggregate: true, aggregateCall: true, hogql, children: arg ? [arg] : [] };
}

function argMax(args: Compiled[], hogql: string): Compiled {
  if (args.length !== 2) throw new QueryProblem(`Function 'argMax' expects 2 arguments, found ${args.length}.`);
  const nested = args.find((a) => a.aggregate);
  if (nested) throw new QueryProblem(`Aggregate function ${nested.hogql} is found inside another aggregate function in query.`);
  const [value, by] = args as [Compiled, Compiled];
  return { sql: `${ARGMAX_SQL}(${value.sql}, ${by.sql})`, kind: value.kind, type: value.type, aggregate: true, aggregateCall: true, hogql, children: [value, by] };
}

function compileCall(expr: Extract<Expr, { kind: 'call' }>, scope: Scope): Compiled {
  const args = expr.args.map((a) => compileExpr(a, scope));
  const name = expr.name.toLowerCase();
  const printedArgs = expr.star ? '*' : args.map((a) => a.hogql).join(', ');
  const canonical = { count: 'count', uniqexact: 'uniqExact', min: 'min', max: 'max', argmax: 'argMax', todate: 'toDate', todatetime: 'toDateTime' }[name];
  if (canonical === undefined) throw unsupported(`The function ${expr.name}()`);
  if (expr.distinct && name !== 'count') throw unsupported(`DISTINCT inside ${canonical}()`);
  const hogql = `${canonical}(${expr.distinct ? 'DISTINCT ' : ''}${printedArgs})`;
  if (name === 'count' && (expr.star || args.length === 0)) return aggregate('count(*)', 'number', 'UInt64', hogql);
  if (name === 'argmax') return argMax(args, hogql);
  const arg = single(canonical, args, !name.startsWith('to'));
  switch (name) {
    case 'count':
    case 'uniqexact':
      return aggregate(`count(${expr.distinct || name === 'uniqexact' ? 'DISTINCT ' : ''}${arg.sql})`, 'number', 'UInt64', hogql, arg);
    case 'min':
    case 'max': {
      const fallback = EMPTY_DEFAULTS[arg.kind];
      const sql = fallback === undefined ? `${name}(${arg.sql})` : `coalesce(${name}(${arg.sql}), ${scope.params.add(fallback)})`;
      return aggregate(sql, arg.kind, arg.type, hogql, arg);
    }
    case 'todate':
      return toDate(arg, hogql, scope.params);
    default:
      return toDateTime(arg, hogql, scope.params);
  }
}

/** A constant read as the type of what it is compared with, as ClickHouse converts it. */
function coerce(constant: Compiled, other: Compiled, params: Params): Compiled {
  const { kind, value } = constant.constant!;
  const read = (parsed: string): Compiled => ({ ...constant, sql: params.add(parsed), kind: other.kind });
  switch (other.kind) {
    case 'datetime':
      if (kind === 'string' || kind === 'datetime') return read(parseDateTimeLiteral(String(value)));
      if (kind === 'date') return read(`${String(value)}T00:00:00.000000Z`);
      break;
    case 'date':
      if (kind === 'string' || kind === 'date') return read(parseDateLiteral(String(value)));
      break;
    case 'uuid':
      if (kind === 'string') return read(parseUuidLiteral(String(value)));
      break;
    case 'text':
    case 'nullable-text':
      if (kind === 'string') return constant;
      if (kind === 'number') throw unsupported(`Comparing the string ${other.hogql} with the number ${String(value)}`, `properties are strings here, so quote the number ('${String(value)}')`);
      break;
    case 'number':
      if (kind === 'number') return constant;
      break;
  }
  throw unsupported(`Comparing ${other.hogql} (${other.type}) with ${constant.hogql}`);
}

function comparable(left: Compiled, right: Compiled, params: Params): [Compiled, Compiled] {
  if (left.constant && right.constant) throw unsupported('Comparing two constants');
  if (right.constant) return [left, coerce(right, left, params)];
  if (left.constant) return [coerce(left, right, params), right];
  const text = (k: ValueKind) => k === 'text' || k === 'nullable-text';
  if (left.kind === right.kind || (text(left.kind) && text(right.kind))) return [left, right];
  throw unsupported(`Comparing ${left.hogql} (${left.type}) with ${right.hogql} (${right.type})`);
}

function condition(sql: string, hogql: string, children: Compiled[]): Compiled {
  return { sql, kind: 'boolean', type: 'UInt8', aggregate: children.some((c) => c.aggregate), hogql, children };
}

function compileCompare(op: CompareOp, leftExpr: Expr, rightExpr: Expr, scope: Scope): Compiled {
  const [left, right] = comparable(compileExpr(leftExpr, scope), compileExpr(rightExpr, scope), scope.params);
  return condition(`(${left.sql} ${op} ${right.sql})`, `${left.hogql} ${op} ${right.hogql}`, [left, right]);
}

function compileIn(expr: Extract<Expr, { kind: 'in' }>, scope: Scope): Compiled {
  const left = compileExpr(expr.left, scope);
  if (left.constant) throw unsupported('A constant on the left of IN');
  const items = expr.items.map((item) => compileExpr(item, scope));
  if (items.some((item) => !item.constant)) throw unsupported('IN with anything but constants in the list');
  const list = items.map((item) => coerce(item, left, scope.params).sql).join(', ');
  const hogql = `${left.hogql} ${expr.negated ? 'NOT IN' : 'IN'} (${items.map((i) => i.hogql).join(', ')})`;
  if (!expr.negated) return condition(`(${left.sql} IN (${list}))`, hogql, [left]);
  // PostHog sets transform_null_in: a missing property is a value of its own, so it is NOT IN any list of strings.
  const nullable = left.kind === 'nullable-text' ? `${left.sql} IS NULL OR ` : '';
  return condition(`(${nullable}${left.sql} NOT IN (${list}))`, hogql, [left]);
}

function requireCondition(compiled: Compiled): Compiled {
  if (compiled.kind !== 'boolean') throw unsupported(`Using ${compiled.hogql} as a condition`);
  return compiled;
}

export function compileExpr(expr: Expr, scope: Scope): Compiled {
  switch (expr.kind) {
    case 'string':
      return leaf({ sql: scope.params.add(expr.value), kind: 'text', type: 'String', hogql: printString(expr.value) }, { kind: 'string', value: expr.value });
    case 'number':
      return leaf({ sql: scope.params.add(expr.value), kind: 'number', type: numberType(expr.value), hogql: expr.text }, { kind: 'number', value: expr.value });
    case 'field':
      return compileField(expr.chain, scope);
    case 'call':
      return compileCall(expr, scope);
    case 'compare':
      return compileCompare(expr.op, expr.left, expr.right, scope);
    case 'in':
      return compileIn(expr, scope);
    case 'not': {
      const inner = requireCondition(compileExpr(expr.expr, scope));
      return condition(`(NOT ${inner.sql})`, `NOT ${inner.hogql}`, [inner]);
    }
    case 'logic': {
      const items = expr.items.map((item) => requireCondition(compileExpr(item, scope)));
      const word = expr.op === 'and' ? ' AND ' : ' OR ';
      return condition(`(${items.map((i) => i.sql).join(word)})`, `(${items.map((i) => i.hogql).join(word)})`, items);
    }
  }
}
