/** What export-source records with each read, decided by the staging use case: tested on values, without argv. */
import { describe, expect, it } from 'vitest';
import { exportSourceRecordedOptions, mappingFingerprint, recordedZone, type ExportSourceChoices } from '../../src/stage-sources/recorded-options.js';
import { SOURCE_FORMATS } from '../../src/sources/formats.js';

const csv = SOURCE_FORMATS.csv!;
const mixpanel = SOURCE_FORMATS.mixpanel!;

const base: ExportSourceChoices = {
  format: csv,
  mapPath: undefined,
  mapping: undefined,
  zone: undefined,
  inferTypes: false,
  columns: {},
  groups: [],
  minTimeMs: Date.UTC(2015, 0, 1),
  geoip: true,
  segmentGroupType: undefined,
  vendor: {},
  sessionizeMinutes: undefined,
  selection: {},
};

describe('exportSourceRecordedOptions', () => {
  it.each<[string, Partial<ExportSourceChoices>, Record<string, unknown>]>([
    ['the defaults', {}, { map: null, mapping: null, timezone: null, inferTypes: false, columns: {}, groups: [], minTime: '2015-01-01T00:00:00.000Z', geoip: true, sessionize: null }],
    ['a zone, by its canonical name', { zone: 'Europe/Paris' }, { timezone: 'Europe/Paris' }],
    ['a Mixpanel project zone of none is UTC', { format: mixpanel }, { timezone: 'UTC' }],
    ['the Segment group type only when given', { segmentGroupType: 'company' }, { segmentGroupType: 'company' }],
    ['the vendor options as they apply', { vendor: { identityLinks: false } }, { identityLinks: false }],
    ['sessions in minutes', { sessionizeMinutes: 30 }, { sessionize: 30 }],
    ['the row selection as recorded', { selection: { onlyEvents: ['a'] } }, { onlyEvents: ['a'] }],
    ['--no-geoip', { geoip: false }, { geoip: false }],
  ])('%s', (_name, choices, expected) => {
    expect(exportSourceRecordedOptions({ ...base, ...choices })).toMatchObject(expected);
  });

  it('records no Segment group type key when there is none', () => {
    expect(Object.keys(exportSourceRecordedOptions(base))).not.toContain('segmentGroupType');
  });
});

describe('mappingFingerprint', () => {
  it('is the same for the same content in any key order, and null without a mapping', () => {
    const a = mappingFingerprint({ events: { a: 'b' }, properties: { x: 'y' } } as never);
    const b = mappingFingerprint({ properties: { x: 'y' }, events: { a: 'b' } } as never);
    expect(a).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(a).toBe(b);
    expect(mappingFingerprint(undefined)).toBeNull();
  });
});

describe('recordedZone', () => {
  it('keeps a given zone, and records none as null for formats with row zones', () => {
    expect(recordedZone(csv, 'UTC')).toBe('UTC');
    expect(recordedZone(csv, undefined)).toBeNull();
  });
});
