/**
 * Insights, dashboards and the tiles between them. An insight joins a dashboard by listing it
 * in `dashboards` (a tile is made, or taken away when it is no longer listed); a dashboard's
 * tiles are read only on the dashboard itself (`null` in lists), and a PATCH of `tiles` sets
 * the layouts and colours of existing tiles (by id) or adds text tiles (no id).
 */
import { randomBytes } from 'node:crypto';
import { permissionDenied, validationError } from '../api-errors.js';
import { baseJson, COMMON_READ_ONLY, isRecord, type KindContext, type KindRules } from './config-kind.js';
import type { ConfigRow } from './config-store.js';
import { answeredQuery } from './insight-from-filters.js';

function tilesOf(context: KindContext, filter: (tile: ConfigRow) => boolean): ConfigRow[] {
  return context.objects.list('tiles').filter(filter);
}

function setInsightDashboards(context: KindContext, insightId: number, dashboards: unknown[]): string | undefined {
  const wanted = new Set(dashboards.map(Number));
  for (const id of wanted) if (context.objects.get('dashboards', id) === undefined) return `Invalid pk "${id}" - object does not exist.`;
  const existing = tilesOf(context, (tile) => tile.body.insight === insightId);
  for (const tile of existing) if (!wanted.has(Number(tile.body.dashboard))) context.objects.update(tile, { ...tile.body, deleted: true });
  const have = new Set(existing.map((tile) => Number(tile.body.dashboard)));
  for (const id of wanted) if (!have.has(id)) context.objects.insert('tiles', { dashboard: id, insight: insightId, text: null, layouts: {}, color: null });
  return undefined;
}

function renderInsight(row: ConfigRow, context: KindContext): Record<string, unknown> {
  const tiles = tilesOf(context, (tile) => tile.body.insight === row.id);
  return {
    ...baseJson(row),
    ...answeredQuery(row.body),
    dashboards: tiles.map((tile) => tile.body.dashboard),
    dashboard_tiles: tiles.map((tile) => ({ id: tile.id, dashboard_id: tile.body.dashboard })),
    result: null,
  };
}

export const insightRules: KindRules = {
  kind: 'insights',
  resource: 'insights',
  scope: 'insight',
  readOnly: [...COMMON_READ_ONLY, 'short_id', 'last_modified_at', 'last_modified_by', 'result', 'dashboard_tiles', 'hogql', 'types', 'is_cached', 'last_refresh', 'timezone'],
  writeOnly: ['dashboards', '_create_in_folder'],
  apply: (row, written, context, created) => {
    let current = row;
    if (created) current = context.objects.update(row, { ...row.body, short_id: randomBytes(6).toString('base64url').slice(0, 8) });
    if (Array.isArray(written.dashboards)) {
      const problem = setInsightDashboards(context, row.id, written.dashboards);
      if (problem !== undefined) return validationError('does_not_exist', problem, 'dashboards');
    }
    return current;
  },
  render: (row, context) => renderInsight(row, context),
};

function renderTile(tile: ConfigRow, context: KindContext): Record<string, unknown> {
  const insight = typeof tile.body.insight === 'number' ? context.objects.get('insights', tile.body.insight) : undefined;
  return {
    id: tile.id,
    insight: insight === undefined ? null : renderInsight(insight, context),
    text: tile.body.text ?? null,
    layouts: tile.body.layouts ?? {},
    color: tile.body.color ?? null,
    deleted: false,
  };
}

function patchTiles(context: KindContext, dashboardId: number, tiles: unknown[]): string | undefined {
  for (const entry of tiles) {
    if (!isRecord(entry)) return 'Each tile must be an object.';
    if (entry.id === undefined) {
      if (!isRecord(entry.text)) return 'A new tile needs a text.';
      context.objects.insert('tiles', { dashboard: dashboardId, insight: null, text: { body: entry.text.body ?? '' }, layouts: entry.layouts ?? {}, color: entry.color ?? null });
      continue;
    }
    const tile = context.objects.get('tiles', Number(entry.id));
    if (tile === undefined || tile.body.dashboard !== dashboardId) return `Tile ${String(entry.id)} is not on this dashboard.`;
    const text = isRecord(entry.text) ? { body: entry.text.body ?? '' } : tile.body.text;
    context.objects.update(tile, {
      ...tile.body,
      text,
      layouts: entry.layouts ?? tile.body.layouts,
      color: entry.color === undefined ? tile.body.color : entry.color,
      deleted: entry.deleted === true,
    });
  }
  return undefined;
}

const EVERYONE_CAN_EDIT = 21;
const ONLY_COLLABORATORS_CAN_EDIT = 37;
const ADMIN_LEVEL = 8;

/**
 * A dashboard restricted to its collaborators is edited only by its creator or a project admin
 * (explicit collaborators are not modelled), on a plan with dashboard permissions.
 */
function canEditDashboard(row: ConfigRow, context: KindContext): boolean {
  if (Number(row.body.restriction_level ?? EVERYONE_CAN_EDIT) < ONLY_COLLABORATORS_CAN_EDIT) return true;
  return row.body._created_by === context.userId || context.level >= ADMIN_LEVEL;
}

export const dashboardRules: KindRules = {
  kind: 'dashboards',
  resource: 'dashboards',
  scope: 'dashboard',
  readOnly: [...COMMON_READ_ONLY, 'is_shared', 'creation_mode', 'effective_restriction_level', 'effective_privilege_level', 'last_refresh', '_created_by'],
  writeOnly: ['tiles', 'use_template', 'use_dashboard', 'delete_insights', '_create_in_folder'],
  mayEdit: (row, context) => (canEditDashboard(row, context) ? undefined : permissionDenied("You don't have edit permissions for this dashboard.")),
  apply: (row, written, context, created) => {
    const current = created ? context.objects.update(row, { ...row.body, _created_by: context.userId }) : row;
    if (!Array.isArray(written.tiles)) return current;
    const problem = patchTiles(context, row.id, written.tiles);
    return problem === undefined ? current : validationError('invalid_input', problem, 'tiles');
  },
  render: (row, context, detail) => {
    const { _created_by: _ignored, ...json } = baseJson(row);
    return {
      ...json,
      restriction_level: row.body.restriction_level ?? EVERYONE_CAN_EDIT,
      tiles: detail ? tilesOf(context, (tile) => tile.body.dashboard === row.id).map((tile) => renderTile(tile, context)) : null,
    };
  },
};
