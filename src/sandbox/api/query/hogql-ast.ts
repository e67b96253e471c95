/** The tree the sandbox's HogQL parser builds: one SELECT over one table. Pure types. */

export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

export type Expr =
  | { kind: 'string'; value: string }
  | { kind: 'number'; value: number; text: string }
  /** A name as written: `event`, `e.event`, `properties.$browser`, `properties['plan']`. */
  | { kind: 'field'; chain: string[] }
  | { kind: 'call'; name: string; distinct: boolean; star: boolean; args: Expr[] }
  | { kind: 'compare'; op: CompareOp; left: Expr; right: Expr }
  | { kind: 'in'; negated: boolean; left: Expr; items: Expr[] }
  | { kind: 'logic'; op: 'and' | 'or'; items: Expr[] }
  | { kind: 'not'; expr: Expr };

export interface SelectItem {
  expr: Expr;
  alias?: string;
}

export interface OrderItem {
  expr: Expr;
  descending: boolean;
}

export interface SelectQuery {
  distinct: boolean;
  select: SelectItem[];
  table: string;
  /** `FROM (SELECT ...)`: the sandbox reads a subquery only to count its rows. */
  from?: SelectQuery;
  tableAlias?: string;
  where?: Expr;
  groupBy: Expr[];
  having?: Expr;
  orderBy: OrderItem[];
  limit?: number;
  offset?: number;
}

/** What a column or expression holds, for comparisons and defaults. */
export type ValueKind = 'datetime' | 'date' | 'text' | 'nullable-text' | 'uuid' | 'number' | 'boolean';
