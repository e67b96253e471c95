/**
 * A dynamic cohort's `filters` checked as PostHog's schema for them does (`CohortFilters`,
 * every model with unknown keys forbidden): `{properties: group}`, a group `{type: AND|OR,
 * values}`, and behavioral, cohort and person filters each with their own keys; a person filter
 * names its operator, and a value unless the operator is `is_set` / `is_not_set`. A static
 * cohort whose filters hold no criteria is not checked.
 */
import { isRecord } from './config-kind.js';

type Json = Record<string, unknown>;

const BYTECODE = ['bytecode', 'bytecode_error', 'conditionHash'];
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  behavioral: [
    'type',
    'key',
    'value',
    'event_type',
    'time_value',
    'time_interval',
    'negation',
    'operator',
    'operator_value',
    'seq_time_interval',
    'seq_time_value',
    'seq_event',
    'seq_event_type',
    'total_periods',
    'min_periods',
    'event_filters',
    'explicit_datetime',
    'explicit_datetime_to',
    ...BYTECODE,
  ],
  cohort: ['type', 'key', 'value', 'negation', ...BYTECODE],
  person: ['type', 'key', 'negation', 'operator', 'value', ...BYTECODE],
  person_metadata: ['type', 'key', 'negation', 'operator', 'value', ...BYTECODE],
};

function extra(node: Json, allowed: readonly string[], where: string): string | undefined {
  const unknown = Object.keys(node).find((key) => !allowed.includes(key));
  return unknown === undefined ? undefined : `Extra inputs are not permitted: ${where}.${unknown}`;
}

function checkFilter(node: Json, where: string): string | undefined {
  const type = String(node.type);
  const allowed = ALLOWED[type];
  if (allowed === undefined) return `Input tag '${type}' found using 'type' does not match any of the expected tags: 'behavioral', 'cohort', 'person', 'person_metadata', 'AND', 'OR' (${where})`;
  const unknown = extra(node, allowed, where);
  if (unknown !== undefined) return unknown;
  if (type === 'behavioral') {
    const missing = ['key', 'value', 'event_type'].filter((key) => node[key] === undefined);
    return missing.length > 0 ? `Missing required keys for behavioral filter: ${missing[0]}` : undefined;
  }
  if (type === 'cohort') return node.key === 'id' && node.value !== undefined ? undefined : `Missing required keys for cohort filter: ${node.key === undefined ? 'key' : 'value'}`;
  const missing: string[] = [];
  if ((node.value === undefined || node.value === null) && node.operator !== 'is_set' && node.operator !== 'is_not_set') missing.push('value');
  if (node.operator === undefined || node.operator === null) missing.push('operator');
  return missing.length > 0 ? `Missing required keys for ${type} filter: ${missing.join(', ')}` : undefined;
}

function checkGroup(node: unknown, where: string): string | undefined {
  if (!isRecord(node) || (node.type !== 'AND' && node.type !== 'OR') || !Array.isArray(node.values)) return `${where} must be a group with type AND or OR and values`;
  const unknown = extra(node, ['type', 'values'], where);
  if (unknown !== undefined) return unknown;
  for (const [index, value] of node.values.entries()) {
    const at = `${where}.values.${index}`;
    if (!isRecord(value)) return `${at} must be an object`;
    const problem = value.type === 'AND' || value.type === 'OR' ? checkGroup(value, at) : checkFilter(value, at);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** Whether filters hold any criterion (`cohort_filters_have_values`). */
export function filtersHaveValues(filters: unknown): boolean {
  const properties = isRecord(filters) ? filters.properties : undefined;
  return isRecord(properties) && Array.isArray(properties.values) && properties.values.length > 0;
}

/** The refusal's detail, or undefined when the filters pass. */
export function cohortFiltersProblem(filters: unknown, isStatic: boolean): string | undefined {
  if (isStatic && !filtersHaveValues(filters)) return undefined;
  if (!isRecord(filters) || !('properties' in filters)) return "Must contain a 'properties' key with type and values";
  return extra(filters, ['properties'], 'filters') ?? checkGroup(filters.properties, 'properties');
}
