/**
 * Renders exports after the create request has been answered, as the service's workers do,
 * so clients meet "not ready yet" (425) for real. Tests can pause rendering and release it.
 */
import { EventEmitter } from 'node:events';
import type { SandboxStore } from '../sandbox-store.js';
import { renderExport } from './export-render.js';
import { pendingExports, saveRendered } from './export-store.js';

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

/** Called after an export is created: renders on a later turn of the event loop unless paused. */
export function scheduleExportRendering(store: SandboxStore): void {
  if (state(store).paused) return;
  setImmediate(() => renderPendingExports(store));
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
