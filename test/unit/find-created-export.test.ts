/** The export a create request made, found among the caller's exports when the answer never came. */
import { describe, expect, it } from 'vitest';
import { createExportHints, RECORDING_HINT, SOURCE_SCOPE_HINT } from '../../src/management/export-create.js';
import { CLOCK_SKEW_ALLOWANCE_MS, exportMatches, findCreatedExport } from '../../src/management/find-created-export.js';
import type { Export } from '../../src/management/management-schemas.js';

const SENT = Date.parse('2026-03-01T12:00:00Z');
const at = (offsetMs: number) => new Date(SENT + offsetMs).toISOString();

function exported(id: number, fields: Partial<Export> & Record<string, unknown> = {}): Export {
  return { id, export_format: 'image/png', created_at: at(1000), has_content: false, filename: `e${id}.png`, dashboard: null, insight: 1, export_context: null, ...fields };
}

describe('exportMatches', () => {
  it.each([
    ['same insight and format', exported(1), { export_format: 'image/png', insight: 1 }, true],
    ['another format', exported(1), { export_format: 'text/csv', insight: 1 }, false],
    ['another insight', exported(1), { export_format: 'image/png', insight: 2 }, false],
    ['a dashboard asked, an insight made', exported(1), { export_format: 'image/png', dashboard: 1 }, false],
    [
      'a context the server extended',
      exported(1, { insight: null, export_context: { event: '$pageview', title: 'P', path: '/x' } }),
      { export_format: 'image/png', export_context: { title: 'P', event: '$pageview' } },
      true,
    ],
    ['a context that differs', exported(1, { insight: null, export_context: { event: 'signup' } }), { export_format: 'image/png', export_context: { event: '$pageview' } }, false],
    ['a context asked, none stored', exported(1, { insight: null }), { export_format: 'image/png', export_context: { event: '$pageview' } }, false],
    [
      'nested context, keys in another order',
      exported(1, { insight: null, export_context: { q: { b: 2, a: [1, { y: 1, x: 0 }] } } }),
      { export_format: 'image/png', export_context: { q: { a: [1, { x: 0, y: 1 }], b: 2 } } },
      true,
    ],
  ] as const)('%s: %s', (_name, e, request, expected) => expect(exportMatches(e, request)).toBe(expected));
});

describe('findCreatedExport', () => {
  const request = { export_format: 'image/png', insight: 1 } as const;

  it('takes the newest match, whatever the order of the list', () => {
    const list = [exported(5, { created_at: at(2000) }), exported(9, { created_at: at(5000) }), exported(7, { created_at: at(3000), export_format: 'text/csv' })];
    expect(findCreatedExport(list, request, SENT)?.id).toBe(9);
  });

  it('breaks a tie on the time by the higher id', () => {
    expect(findCreatedExport([exported(3), exported(4)], request, SENT)?.id).toBe(4);
  });

  it('allows the server clock to run behind, within the allowance', () => {
    expect(findCreatedExport([exported(1, { created_at: at(-CLOCK_SKEW_ALLOWANCE_MS) })], request, SENT)?.id).toBe(1);
  });

  it('ignores an identical export made long before the request', () => {
    expect(findCreatedExport([exported(1, { created_at: at(-CLOCK_SKEW_ALLOWANCE_MS - 1) })], request, SENT)).toBeUndefined();
  });

  it('finds nothing in an empty list', () => expect(findCreatedExport([], request, SENT)).toBeUndefined());
});

describe('createExportHints', () => {
  it.each([
    [{ export_format: 'image/png', insight: 1 }, { 403: [SOURCE_SCOPE_HINT] }],
    [{ export_format: 'application/pdf', dashboard: 1 }, { 403: [SOURCE_SCOPE_HINT] }],
    [{ export_format: 'text/csv', export_context: {} }, {}],
    [{ export_format: 'video/mp4', export_context: {} }, { 400: [RECORDING_HINT] }],
    [
      { export_format: 'image/gif', insight: 1 },
      { 403: [SOURCE_SCOPE_HINT], 400: [RECORDING_HINT] },
    ],
  ] as const)('%j', (request, expected) => expect(createExportHints(request)).toEqual(expected));
});
