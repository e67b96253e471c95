/**
 * How one kind of configuration object behaves, as PostHog's serializer for it does: which
 * fields a write ignores (read-only) or consumes (write-only), what it refuses, what a write
 * also does (a flag's usage dashboard, an experiment's flag), and what a read adds.
 */
import type { SandboxResponse } from '../../router.js';
import type { SandboxStore } from '../../sandbox-store.js';
import { validationError } from '../api-errors.js';
import type { ConfigKind, ConfigRow, ConfigStore } from './config-store.js';

export interface KindContext {
  objects: ConfigStore;
  store: SandboxStore;
  teamId: number;
  organizationId: string;
  /** The caller: its user id and effective level in the project (1 member, 8 admin, 15 owner). */
  userId: number;
  level: number;
}

export interface KindRules {
  kind: ConfigKind;
  /** The path segment under the project. */
  resource: string;
  /** The key's scope object (`action` for `action:read` / `action:write`). */
  scope: string;
  /** Fields a write ignores. */
  readOnly: readonly string[];
  /** Fields a write consumes without storing them (handled by `apply`). */
  writeOnly?: readonly string[];
  /** A refusal for the merged body about to be stored, or undefined. `id` is undefined on create. */
  validate?: (body: Record<string, unknown>, context: KindContext, id: number | undefined) => SandboxResponse | undefined;
  /** What the write does besides storing the body: given the request's write-only fields, and the whole request body. */
  apply?: (row: ConfigRow, written: Record<string, unknown>, context: KindContext, created: boolean, request: Record<string, unknown>) => ConfigRow | SandboxResponse;
  /** A refusal (403) when the caller may not change this object, or undefined. */
  mayEdit?: (row: ConfigRow, context: KindContext) => SandboxResponse | undefined;
  /** Objects of other projects this project's list and reads also show (an organization's annotations). */
  alsoVisible?: (context: KindContext) => ConfigRow[];
  /** The object as the API answers it; `detail` for a single-object read. */
  render?: (row: ConfigRow, context: KindContext, detail: boolean) => Record<string, unknown>;
}

export const COMMON_READ_ONLY = ['id', 'created_at', 'created_by', 'updated_at', 'user_access_level', 'team_id'] as const;

export function baseJson(row: ConfigRow): Record<string, unknown> {
  return { ...row.body, id: row.id, created_at: row.createdAt, updated_at: row.updatedAt, deleted: row.deleted, created_by: null };
}

/** A name that must be unique among the kind's objects that are not deleted. */
export function uniqueAmongLive(context: KindContext, kind: ConfigKind, field: string, value: unknown, id: number | undefined, detail: string): SandboxResponse | undefined {
  const clash = context.objects.list(kind).find((row) => row.id !== id && row.body[field] === value);
  return clash === undefined ? undefined : validationError('unique', detail, field);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
