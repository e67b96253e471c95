import { describe, expect, it } from 'vitest';
import { createZoneConverter } from '../../src/events/time-zone.js';
import { mapMixpanel, MIXPANEL_EVENT_RENAMES } from '../../src/sources/vendors/mixpanel.js';
import { pipelineTime } from '../../src/sources/vendors/mixpanel-pipeline.js';
import { mapAndBuild, stagedEvent, type Staged } from '../helpers/map-and-build.js';

type Row = Record<string, unknown>;

function stage(record: Row, zone?: string): Staged {
  return mapAndBuild(mapMixpanel(record, zone ? createZoneConverter(zone) : undefined), MIXPANEL_EVENT_RENAMES);
}

/** An identified web event as the export API writes it (time_in_ms), Simplified ID Merge. */
const EXPORTED: Row = {
  event: '$mp_web_page_view',
  properties: {
    time: 1756720800123,
    distinct_id: 'ana@example.com',
    $insert_id: 'ins-1',
    $device_id: 'dev-1',
    $user_id: 'ana@example.com',
    $city: 'Lyon',
    mp_country_code: 'FR',
    $current_url: 'https://shop.example.com/a',
    mp_processing_time_ms: 1756720801000,
    plan: 'pro',
  },
};

/** The same event as a JSON pipeline row: the columns outside, the rest in `properties`. */
function pipelineRow(changes: Row = {}, properties: Row = {}): Row {
  return {
    event_name: '$mp_web_page_view',
    time: '2025-09-01T10:00:00.123Z',
    distinct_id: 'ana@example.com',
    device_id: 'dev-1',
    user_id: 'ana@example.com',
    insert_id: 'ins-1',
    properties: { $city: 'Lyon', mp_country_code: 'FR', $current_url: 'https://shop.example.com/a', mp_processing_time_ms: 1756720801000, plan: 'pro', ...properties },
    ...changes,
  };
}

describe('Mixpanel JSON pipelines: a row stages as the same event from the export API', () => {
  const expected = stagedEvent(stage(EXPORTED));

  it('the export record itself, for reference', () => {
    expect(expected).toMatchObject({ event: '$pageview', distinctId: 'ana@example.com', timestamp: '2025-09-01T10:00:00.123Z' });
    expect(expected.properties).toMatchObject({ $device_id: 'dev-1', $user_id: 'ana@example.com', $geoip_city_name: 'Lyon', $geoip_country_name: 'France', $host: 'shop.example.com' });
  });

  it.each<[string, Row]>([
    ['time as ISO text with Z', pipelineRow()],
    ['time as a TIMESTAMP text in UTC, microseconds', pipelineRow({ time: '2025-09-01 10:00:00.123456 UTC' })],
    ['time as text without a zone (UTC by contract)', pipelineRow({ time: '2025-09-01 10:00:00.123' })],
    ['time as epoch milliseconds', pipelineRow({ time: 1756720800123 })],
    ['time as epoch microseconds', pipelineRow({ time: 1756720800123456 })],
    ['time as microseconds in digits', pipelineRow({ time: '1756720800123456' })],
    ['properties as JSON text', { ...pipelineRow(), properties: JSON.stringify(pipelineRow().properties) }],
    ['the columns repeated inside properties', pipelineRow({}, { time: 1756720800, distinct_id: 'ana@example.com', $insert_id: 'ins-1', $device_id: 'dev-1', $user_id: 'ana@example.com' })],
    ['the property order changed', { ...pipelineRow(), properties: Object.fromEntries(Object.entries(pipelineRow().properties as Row).reverse()) }],
  ])('%s', (_name, row) => {
    expect(stage(row)).toEqual(expected);
  });

  it.each<[string, Row, Row]>([
    [
      'an anonymous event (Simplified ID Merge: $device: distinct_id, no user_id)',
      { event: 'Viewed', properties: { time: 1756720800, distinct_id: '$device:dev-2', $insert_id: 'i2', $device_id: 'dev-2' } },
      { event_name: 'Viewed', time: 1756720800, distinct_id: '$device:dev-2', device_id: 'dev-2', user_id: null, insert_id: 'i2', properties: {} },
    ],
    [
      'the original ID merge (no device or user id)',
      { event: 'Paid', properties: { time: 1756720800, distinct_id: 'u-9', $insert_id: 'i3', amount: 9.5 } },
      { event_name: 'Paid', time: '2025-09-01T10:00:00Z', distinct_id: 'u-9', device_id: null, user_id: null, insert_id: 'i3', properties: { amount: 9.5 } },
    ],
    [
      'no distinct_id column: the user id, as the export falls back to $user_id',
      { event: 'Paid', properties: { time: 1756720800, distinct_id: '', $user_id: 'u-9', $insert_id: 'i4' } },
      { event_name: 'Paid', time: 1756720800, user_id: 'u-9', insert_id: 'i4', properties: {} },
    ],
    [
      'a column the table has beyond the documented ones, kept as the export keeps its top-level fields',
      { event: 'Paid', mp_lib_extra: 'x', properties: { time: 1756720800, distinct_id: 'u-9', $insert_id: 'i5' } },
      { event_name: 'Paid', time: 1756720800, distinct_id: 'u-9', insert_id: 'i5', mp_lib_extra: 'x', properties: {} },
    ],
  ])('%s', (_name, exported, row) => {
    const fromExport = stagedEvent(stage(exported));
    expect(stage(row)).toEqual(fromExport);
  });

  it("reads pipeline times as UTC whatever --timezone says (it is for the export API's project-zone times)", () => {
    expect(stagedEvent(stage(pipelineRow({ time: 1756720800 }), 'America/New_York')).timestamp).toBe('2025-09-01T10:00:00.000Z');
    expect(stagedEvent(stage({ event: 'x', properties: { time: 1756720800, distinct_id: 'u' } }, 'America/New_York')).timestamp).toBe('2025-09-01T14:00:00.000Z');
  });

  it("reads a record with both event and event_name as the export's shape", () => {
    const staged = stagedEvent(stage({ event: 'Paid', event_name: 'other', properties: { time: 1756720800, distinct_id: 'u' } }));
    expect(staged).toMatchObject({ event: 'Paid', distinctId: 'u' });
    expect(staged.properties).toMatchObject({ event_name: 'other' });
  });

  it.each<[string, Row, { reason: string; field: string }]>([
    ['no time', pipelineRow({ time: null }), { reason: 'missing_timestamp', field: 'time' }],
    ['a time that is no time', pipelineRow({ time: 'yesterday' }), { reason: 'bad_timestamp', field: 'time' }],
    ['properties text that is not an object', pipelineRow({ properties: '[1,2]' }), { reason: 'bad_properties', field: 'properties' }],
    ['properties of another type', pipelineRow({ properties: 42 }), { reason: 'bad_properties', field: 'properties' }],
    ['no event_name', pipelineRow({ event_name: '' }), { reason: 'missing_event', field: 'event_name' }],
    ['no distinct, user or device id', pipelineRow({ distinct_id: null, user_id: null, device_id: null }), { reason: 'missing_distinct_id', field: 'properties.distinct_id' }],
  ])('rejects a row with %s, naming the column', (_name, row, problem) => {
    expect(stage(row)).toMatchObject({ type: 'rejected', ...problem });
  });

  it('names the column the distinct_id came from in messages', () => {
    const staged = stage(pipelineRow({ distinct_id: null, user_id: null, device_id: 'x'.repeat(300) }));
    expect(staged).toMatchObject({ type: 'rejected', reason: 'distinct_id_too_long', field: 'device_id' });
  });

  it.each<[unknown, number]>([
    [1756720800, 1756720800000],
    [1756720800123, 1756720800123],
    [1756720800123456, 1756720800123],
    ['2025-09-01T12:00:00.5+02:00', 1756720800500],
  ])('pipelineTime(%j) is %d', (value, ms) => {
    expect(pipelineTime(value)).toBe(ms);
  });
});
