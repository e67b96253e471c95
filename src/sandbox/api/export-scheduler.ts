/**
 * When exports get rendered. Today's PostHog renders while the create request waits
 * (`renderExportNow`). Tests can pause rendering: new exports are then answered unrendered,
 * as when a render outlasts the request, so clients meet "not ready yet" for real, and
 * resuming renders them all.
 */
import { EventEmitter } from 'node:events';
import type { SandboxStore } from '../sandbox-store.js';
import { renderExport } from './export-render.js';
import { getExportById, pendingExports, saveRendered } from './export-store.js';

interface RenderState {
  paused: boolean;
  events: EventEmitter;
}

const states = new WeakMap<SandboxStore, RenderState>();

function state(store: SandboxStore): RenderState {
  let s = states.get(store);
  if (s === undefined) states.set(store, (s = { paused: false, events: new EventEmitter() }));
  return s;
}

/** Renders every export still waiting; returns how many. */
export function renderPendingExports(store: SandboxStore): number {
  if (!store.db.open) return 0;
  const pending = pendingExports(store);
  for (const row of pending) saveRendered(store, row.id, renderExport(store, row));
  return pending.length;
}

/** Renders one export while its create request waits; false when rendering is paused (then it waits for a resume). */
export function renderExportNow(store: SandboxStore, id: number): boolean {
  if (state(store).paused || !store.db.open) return false;
  const row = getExportById(store, id);
  if (row !== undefined && row.has_content === 0 && row.exception === null) saveRendered(store, id, renderExport(store, row));
  return true;
}

/** Holds new exports unrendered until `resumeExportRendering` (for tests of waiting clients). */
export function pauseExportRendering(store: SandboxStore): void {
  state(store).paused = true;
}

export function resumeExportRendering(store: SandboxStore): number {
  state(store).paused = false;
  return renderPendingExports(store);
}

/** The content route reports each 425 it answers, so a test can act once a client is waiting. */
export function reportNotReady(store: SandboxStore, id: number): void {
  state(store).events.emit('not-ready', id);
}

export function nextNotReady(store: SandboxStore): Promise<number> {
  return new Promise((resolve) => state(store).events.once('not-ready', resolve));
}
