/**
 * A parsed HogQL SELECT as one parametrised SQLite statement over the sandbox's events table,
 * always limited to one project, with the columns and types PostHog would report. Pure.
 */
import type { Expr, SelectQuery } from './hogql-ast.js';
import { compileExpr, Params, type Compiled, type Scope, type ValueKind } from './hogql-expressions.js';
import { printIdentifier } from './hogql-literals.js';
import { QueryProblem, unsupported } from './query-problem.js';
import { HOGQL_TABLES, POSTHOG_ONLY_TABLES, type TableDef } from './hogql-tables.js';

export interface CompiledQuery {
  /** Without LIMIT and OFFSET: the caller adds them as parameters @limit and @offset. */
  sql: string;
  params: Record<string, string | number>;
  columns: string[];
  /** [column, ClickHouse type] pairs, as PostHog's `types`. */
  types: Array<[string, string]>;
  kinds: ValueKind[];
  /** The query printed back as HogQL, without LIMIT. */
  hogql: string;
  /** Counts the rows the query reads (its table's rows its WHERE keeps), with the same params. */
  scanSql: string;
}

function firstAggregate(c: Compiled): Compiled | undefined {
  if (c.aggregateCall) return c;
  for (const child of c.children) {
    const found = firstAggregate(child);
    if (found) return found;
  }
  return undefined;
}

function withoutAggregates(c: Compiled, clause: string): Compiled {
  const found = firstAggregate(c);
  if (found) throw new QueryProblem(`Aggregate function ${found.hogql} is found in ${clause} in query.`);
  return c;
}

/** The first column outside GROUP BY keys and aggregates, as ClickHouse refuses it. */
function firstUngrouped(c: Compiled, keys: Set<string>): Compiled | undefined {
  if (c.constant || c.aggregateCall || keys.has(c.hogql)) return undefined;
  if (c.children.length === 0) return c;
  for (const child of c.children) {
    const found = firstUngrouped(child, keys);
    if (found) return found;
  }
  return undefined;
}

function tableOf(query: SelectQuery): TableDef {
  if (Object.hasOwn(HOGQL_TABLES, query.table)) return HOGQL_TABLES[query.table]!;
  if (POSTHOG_ONLY_TABLES.includes(query.table)) throw unsupported(`The table ${query.table}`);
  throw new QueryProblem(`Unknown table \`${query.table}\`. The sandbox answers queries FROM ${Object.keys(HOGQL_TABLES).join(', ')}.`);
}

interface Ordering {
  sql: string;
  hogql: string;
  compiled?: Compiled;
}

function orderTerm(expr: Expr, descending: boolean, select: SelectQuery['select'], scope: Scope): Ordering {
  const direction = descending ? ' DESC' : ' ASC';
  if (expr.kind === 'number') throw unsupported('ORDER BY a column number');
  const aliasIndex = expr.kind === 'field' && expr.chain.length === 1 ? select.findIndex((item) => item.alias === expr.chain[0]) : -1;
  if (aliasIndex >= 0) return { sql: `c${aliasIndex}${direction}`, hogql: `${printIdentifier(select[aliasIndex]!.alias!)}${direction}` };
  const compiled = compileExpr(expr, scope);
  return { sql: `${compiled.sql}${direction}`, hogql: `${compiled.hogql}${direction}`, compiled };
}

function checkGrouping(items: Compiled[], groupBy: Compiled[]): void {
  const keys = new Set(groupBy.map((g) => g.hogql));
  for (const item of items) {
    const loose = firstUngrouped(item, keys);
    if (loose) throw new QueryProblem(`Column \`${loose.hogql}\` is not under aggregate function and not in GROUP BY keys.`);
  }
}

function printSelect(query: SelectQuery, select: Compiled[], where: Compiled | undefined, groupBy: Compiled[], having: Compiled | undefined, order: Ordering[]): string {
  const items = select.map((c, i) => (query.select[i]!.alias === undefined ? c.hogql : `${c.hogql} AS ${printIdentifier(query.select[i]!.alias!)}`));
  const parts = [`SELECT ${query.distinct ? 'DISTINCT ' : ''}${items.join(', ')}`, `FROM ${query.table}${query.tableAlias ? ` AS ${printIdentifier(query.tableAlias)}` : ''}`];
  if (where) parts.push(`WHERE ${where.hogql}`);
  if (groupBy.length > 0) parts.push(`GROUP BY ${groupBy.map((g) => g.hogql).join(', ')}`);
  if (having) parts.push(`HAVING ${having.hogql}`);
  if (order.length > 0) parts.push(`ORDER BY ${order.map((o) => o.hogql).join(', ')}`);
  return parts.join(' ');
}

/** `SELECT count() FROM (SELECT ...)`: the one use of a subquery the sandbox answers (counting grouped rows). */
function compileCount(query: SelectQuery, inner: SelectQuery, teamId: number, params: Params): CompiledQuery {
  const [item, ...more] = query.select;
  const isCount = item !== undefined && more.length === 0 && item.expr.kind === 'call' && item.expr.name.toLowerCase() === 'count' && (item.expr.star || item.expr.args.length === 0);
  const plain = query.where === undefined && query.groupBy.length === 0 && query.having === undefined && query.orderBy.length === 0 && !query.distinct;
  if (!isCount || !plain) throw unsupported('A subquery other than SELECT count() FROM (SELECT ...)');
  if (inner.limit !== undefined || inner.offset !== undefined) throw unsupported('LIMIT inside a subquery');
  const compiled = compileQuery(inner, teamId, params);
  const column = item.alias ?? 'count()';
  return {
    sql: `SELECT count(*) AS c0 FROM (${compiled.sql})`,
    scanSql: compiled.scanSql,
    params: params.values,
    columns: [column],
    types: [[column, 'UInt64']],
    kinds: ['number'],
    hogql: `SELECT count()${item.alias === undefined ? '' : ` AS ${printIdentifier(item.alias)}`} FROM (${compiled.hogql})`,
  };
}

export function compileQuery(query: SelectQuery, teamId: number, params = new Params()): CompiledQuery {
  if (query.from !== undefined) return compileCount(query, query.from, teamId, params);
  const table = tableOf(query);
  const team = params.add(teamId);
  const base: Scope = { params, tableNames: [query.table, ...(query.tableAlias ? [query.tableAlias] : [])], aliases: null, table };
  const select = query.select.map((item) => compileExpr(item.expr, base));
  const scope: Scope = { ...base, aliases: new Map(query.select.filter((i) => i.alias !== undefined).map((i) => [i.alias!, i.expr])) };
  const where = query.where === undefined ? undefined : withoutAggregates(compileExpr(query.where, scope), 'WHERE');
  if (where && where.kind !== 'boolean') throw unsupported(`Using ${where.hogql} as a condition`);
  const groupBy = query.groupBy.map((g) => withoutAggregates(compileExpr(g, scope), 'GROUP BY'));
  const having = query.having === undefined ? undefined : compileExpr(query.having, scope);
  if (having && having.kind !== 'boolean') throw unsupported(`Using ${having.hogql} as a condition`);
  const order = query.orderBy.map((o) => orderTerm(o.expr, o.descending, query.select, scope));
  const aggregating = groupBy.length > 0 || select.some((c) => c.aggregate) || having !== undefined;
  if (aggregating) checkGrouping([...select, ...(having ? [having] : []), ...order.flatMap((o) => (o.compiled ? [o.compiled] : []))], groupBy);
  const filter = `WHERE events.team_id = ${team}${where ? ` AND ${where.sql}` : ''}`;
  const columns = select.map((c, i) => query.select[i]!.alias ?? c.hogql);
  const sql = [
    `SELECT ${query.distinct ? 'DISTINCT ' : ''}${select.map((c, i) => `${c.sql} AS c${i}`).join(', ')}`,
    `FROM ${table.from} ${filter}`,
    groupBy.length > 0 ? `GROUP BY ${groupBy.map((g) => g.sql).join(', ')}` : '',
    having ? `HAVING ${having.sql}` : '',
    order.length > 0 ? `ORDER BY ${order.map((o) => o.sql).join(', ')}` : aggregating || query.distinct ? '' : 'ORDER BY events.id',
  ].filter((part) => part !== '');
  return {
    sql: sql.join(' '),
    // A table PostHog aggregates over its whole raw table is read whole, whatever the WHERE.
    scanSql: `SELECT count(*) FROM ${table.from} ${table.wholeTable ? `WHERE events.team_id = ${team}` : filter}`,
    params: params.values,
    columns,
    types: select.map((c, i) => [columns[i]!, c.type]),
    kinds: select.map((c) => c.kind),
    hogql: printSelect(query, select, where, groupBy, having, order),
  };
}
