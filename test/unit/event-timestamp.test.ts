import { describe, expect, it } from 'vitest';
import { parseIsoUtc, resolveTimestamp } from '../../src/sandbox/capture/event-timestamp.js';

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

describe('resolveTimestamp (PostHog ingestion rules)', () => {
  it.each([
    ['timestamp, no sent_at: as given', { timestamp: '2024-03-01T10:00:00.123Z' }, undefined, '2024-03-01T10:00:00.123Z'],
    ['zone-less timestamp is UTC', { timestamp: '2024-03-01T10:00:00' }, undefined, '2024-03-01T10:00:00.000Z'],
    ['offset timestamp', { timestamp: '2024-03-01T12:00:00+02:00' }, undefined, '2024-03-01T10:00:00.000Z'],
    ['sent_at 1 h behind the server: +1 h', { timestamp: '2024-03-01T10:00:00Z' }, NOW - 3_600_000, '2024-03-01T11:00:00.000Z'],
    ['a stale sent_at moves historical events', { timestamp: '2024-03-01T10:00:00Z' }, NOW - 86_400_000, '2024-03-02T10:00:00.000Z'],
    ['$ignore_sent_at keeps the timestamp', { timestamp: '2024-03-01T10:00:00Z', ignoreSentAt: true }, NOW - 3_600_000, '2024-03-01T10:00:00.000Z'],
    ['no timestamp: offset ms before now', { offset: 5000 }, undefined, iso(NOW - 5000)],
    ['no timestamp, no offset: now', {}, NOW - 3_600_000, iso(NOW)],
    ['unreadable timestamp: now', { timestamp: 'yesterday' }, undefined, iso(NOW)],
    ['more than 23 h in the future: now', { timestamp: iso(NOW + 24 * 3_600_000) }, undefined, iso(NOW)],
    ['less than 23 h in the future: kept', { timestamp: iso(NOW + 3_600_000) }, undefined, iso(NOW + 3_600_000)],
  ])('%s', (_name, input, sentAt, expected) => {
    expect(iso(resolveTimestamp({ ignoreSentAt: false, ...input }, NOW, sentAt))).toBe(expected);
  });
});

describe('parseIsoUtc', () => {
  it.each([
    ['2024-03-01', Date.UTC(2024, 2, 1)],
    ['2024-03-01 10:00:00', Date.UTC(2024, 2, 1, 10)],
    ['2024-03-01T10:00:00.5-01:00', Date.UTC(2024, 2, 1, 11, 0, 0, 500)],
    ['', undefined],
    ['nope', undefined],
  ])('%j', (text, expected) => {
    expect(parseIsoUtc(text)).toBe(expected);
  });
});
