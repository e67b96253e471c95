/**
 * Parquet FLOAT (32-bit) values as their shortest float32 numerals (float32Value) wherever they
 * are: a top-level column, or inside lists, structs and maps. hyparquet widens each to a double
 * (0.1 becomes 0.10000000149011612) before it builds the nested value, and a widened 32-bit float
 * cannot be told from a double by its value, so each cell is walked by its column's schema. The
 * walk follows the shapes hyparquet's assembly gives (its assemble.js and schema.js): a LIST
 * group is an array of its elements, a MAP group an object of its values by key, another group
 * an object of its fields by name, and a REPEATED field outside a LIST an array.
 */
import { float32Value } from './columnar-values.js';
import type { SchemaElement } from './parquet-schema.js';

interface SchemaNode {
  element: SchemaElement;
  children: SchemaNode[];
}

/** What is done to one decoded cell before it is written. */
export type CellFix = (cell: unknown) => unknown;

/** The top-level columns holding a FLOAT at any depth, each with what writes its cell's FLOATs as float32 numerals. */
export function floatFixes(schema: readonly SchemaElement[]): Map<string, CellFix> {
  const fixes = new Map<string, CellFix>();
  if (schema.length === 0) return fixes;
  for (const column of schemaTree(schema, 0).node.children) {
    const fix = fieldFix(column);
    if (fix !== undefined) fixes.set(column.element.name, fix);
  }
  return fixes;
}

/** The element at `index` with its descendants, and the index after them. */
function schemaTree(schema: readonly SchemaElement[], index: number): { node: SchemaNode; next: number } {
  const element = schema[index]!;
  const children: SchemaNode[] = [];
  let next = index + 1;
  for (let child = 0; child < (element.num_children ?? 0) && next < schema.length; child++) {
    const sub = schemaTree(schema, next);
    children.push(sub.node);
    next = sub.next;
  }
  return { node: { element, children }, next };
}

/** A field as it is held: an array of its values when REPEATED, its value otherwise. */
function fieldFix(node: SchemaNode): CellFix | undefined {
  const fix = valueFix(node);
  return fix !== undefined && node.element.repetition_type === 'REPEATED' ? eachItem(fix) : fix;
}

function valueFix(node: SchemaNode): CellFix | undefined {
  const { element, children } = node;
  if (children.length === 0) return element.type === 'FLOAT' ? float32Value : undefined;
  // A VARIANT's values are decoded by hyparquet from bytes, never from FLOAT columns.
  if (element.logical_type?.type === 'VARIANT') return undefined;
  if (isListLike(node)) {
    const repeated = children[0]!;
    const item = repeated.children.length === 1 ? fieldFix(repeated.children[0]!) : valueFix(repeated);
    return item === undefined ? undefined : eachItem(item);
  }
  if (isMapLike(node)) {
    const value = fieldFix(children[0]!.children[1]!);
    return value === undefined ? undefined : eachValue(value);
  }
  const fields = children.flatMap((child) => {
    const fix = fieldFix(child);
    return fix === undefined ? [] : [[child.element.name, fix] as const];
  });
  return fields.length === 0 ? undefined : eachField(fields);
}

/** hyparquet's test for a LIST group that becomes an array. */
function isListLike(node: SchemaNode): boolean {
  if (node.element.converted_type !== 'LIST' || node.children.length > 1) return false;
  const repeated = node.children[0];
  return repeated !== undefined && repeated.children.length <= 1 && repeated.element.repetition_type === 'REPEATED';
}

/** hyparquet's test for a MAP group that becomes an object of values by key. */
function isMapLike(node: SchemaNode): boolean {
  if (node.element.converted_type !== 'MAP' || node.children.length > 1) return false;
  const entries = node.children[0];
  if (entries === undefined || entries.children.length !== 2 || entries.element.repetition_type !== 'REPEATED') return false;
  const named = (name: string) => entries.children.find((child) => child.element.name === name);
  return named('key')?.element.repetition_type !== 'REPEATED' && named('value')?.element.repetition_type !== 'REPEATED';
}

function eachItem(fix: CellFix): CellFix {
  return (cell) => (Array.isArray(cell) || ArrayBuffer.isView(cell) ? Array.from(cell as ArrayLike<unknown>, (item) => fix(item)) : cell);
}

function eachValue(fix: CellFix): CellFix {
  return (cell) => {
    if (!isObject(cell)) return cell;
    for (const key of Object.keys(cell)) cell[key] = fix(cell[key]);
    return cell;
  };
}

function eachField(fields: ReadonlyArray<readonly [string, CellFix]>): CellFix {
  return (cell) => {
    if (!isObject(cell)) return cell;
    for (const [name, fix] of fields) if (Object.hasOwn(cell, name)) cell[name] = fix(cell[name]);
    return cell;
  };
}

function isObject(cell: unknown): cell is Record<string, unknown> {
  return typeof cell === 'object' && cell !== null && !Array.isArray(cell) && !ArrayBuffer.isView(cell);
}
