/**
 * A dashboard's tiles in the destination: each insight tile made by adding the dashboard to
 * the copied insight (PostHog makes tiles that way), then the layouts and colours set on those
 * tiles, and text tiles added; nothing already on the destination dashboard is taken away.
 */
import type { CopyContext } from './copy-context.js';

type Json = Record<string, unknown>;

interface SourceTile {
  insight?: number;
  text?: string;
  layouts: unknown;
  color: unknown;
}

function record(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

export function tilesOf(dashboard: Json): SourceTile[] {
  const tiles = Array.isArray(dashboard.tiles) ? dashboard.tiles : [];
  return tiles
    .map(record)
    .filter((tile): tile is Json => tile !== undefined && tile.deleted !== true)
    .map((tile) => {
      const insightId = record(tile.insight)?.id;
      const text = record(tile.text)?.body;
      return { ...(typeof insightId === 'number' ? { insight: insightId } : {}), ...(typeof text === 'string' ? { text } : {}), layouts: tile.layouts ?? {}, color: tile.color ?? null };
    })
    .filter((tile) => tile.insight !== undefined || tile.text !== undefined);
}

/** The tiles as content: insight tiles by the given id map (source ids, or identity for a destination). */
export function tilesContent(dashboard: Json, insightId: (id: number) => number | undefined = (id) => id): Json[] {
  return tilesOf(dashboard)
    .map((tile) => ({ insight: tile.insight === undefined ? null : (insightId(tile.insight) ?? null), text: tile.text ?? null, layouts: tile.layouts, color: tile.color }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

async function joinInsight(context: CopyContext, insightId: number, dashboardId: number): Promise<string | undefined> {
  const insight = await context.dest.get('insights', insightId);
  const current = Array.isArray(insight.dashboards) ? insight.dashboards.map(Number) : [];
  if (current.includes(dashboardId)) return undefined;
  const result = await context.dest.update('insights', insightId, { dashboards: [...current, dashboardId] });
  return result.ok ? undefined : `insight ${insightId} could not be placed on it: ${result.message}`;
}

function placeTile(tile: SourceTile, destTiles: Json[]): Json | undefined {
  if (tile.insight !== undefined) {
    const found = destTiles.find((t) => record(t.insight)?.id === tile.insight);
    return found === undefined ? undefined : { id: found.id, layouts: tile.layouts, color: tile.color };
  }
  const existing = destTiles.find((t) => record(t.text)?.body === tile.text);
  return existing === undefined ? { text: { body: tile.text }, layouts: tile.layouts, color: tile.color } : { id: existing.id, layouts: tile.layouts, color: tile.color };
}

/** Puts the source dashboard's tiles on the destination dashboard; returns warnings. */
export async function copyTiles(context: CopyContext, source: Json, destId: number): Promise<string[]> {
  const warnings: string[] = [];
  const wanted: SourceTile[] = [];
  for (const tile of tilesOf(source)) {
    if (tile.insight === undefined) {
      wanted.push(tile);
      continue;
    }
    const destInsight = context.maps.insight.get(tile.insight);
    if (destInsight === undefined) {
      warnings.push(`its tile of insight ${tile.insight} is left out: that insight was not copied`);
      continue;
    }
    const problem = await joinInsight(context, destInsight, destId);
    if (problem !== undefined) warnings.push(problem);
    else wanted.push({ ...tile, insight: destInsight });
  }
  const dest = await context.dest.get('dashboards', destId);
  const destTiles = (Array.isArray(dest.tiles) ? dest.tiles : []).map(record).filter((t): t is Json => t !== undefined);
  const tiles = wanted.map((tile) => placeTile(tile, destTiles)).filter((t): t is Json => t !== undefined);
  if (tiles.length > 0) {
    const result = await context.dest.update('dashboards', destId, { tiles });
    if (!result.ok) warnings.push(`its tile layouts could not be set: ${result.message}`);
  }
  return warnings;
}
