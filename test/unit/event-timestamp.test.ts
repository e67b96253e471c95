import { describe, expect, it } from 'vitest';
import { parseEventDate } from '../../src/sandbox/capture/event-date.js';
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
    expect(iso(resolveTimestamp({ ignoreSentAt: false, ...input }, NOW, sentAt).ms)).toBe(expected);
  });
});

describe('resolveTimestamp keeps microseconds (events.timestamp is DateTime64(6))', () => {
  it.each([
    ['RFC 3339 with six digits', '2024-03-01T10:00:00.123456Z', Date.UTC(2024, 2, 1, 10, 0, 0, 123), 456],
    ['nine digits: the nanoseconds dropped', '2024-03-01T10:00:00.123456789+00:00', Date.UTC(2024, 2, 1, 10, 0, 0, 123), 456],
    ['four digits', '2024-03-01 10:00:00.1234', Date.UTC(2024, 2, 1, 10, 0, 0, 123), 400],
    ['epoch nanoseconds', '1709287200123456789', Date.UTC(2024, 2, 1, 10, 0, 0, 123), 456],
    ['three digits', '2024-03-01T10:00:00.123Z', Date.UTC(2024, 2, 1, 10, 0, 0, 123), 0],
  ])('%s', (_name, timestamp, ms, subMsUs) => {
    expect(resolveTimestamp({ ignoreSentAt: false, timestamp }, NOW, undefined)).toEqual({ ms, subMsUs });
  });

  it('a time the server chose has none', () => {
    expect(resolveTimestamp({ ignoreSentAt: false, timestamp: '2024-03-01T10:00:00.123456Z', offset: 5 }, NOW, undefined)).toEqual({ ms: NOW - 5, subMsUs: 0 });
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

describe('parseEventDate: the timestamp texts PostHog reads', () => {
  it.each([
    ['RFC 3339 with Z', '2024-05-01T10:00:00.000Z', '2024-05-01T10:00:00.000Z'],
    ['RFC 3339 with an offset', '2024-05-01T10:00:00+02:00', '2024-05-01T08:00:00.000Z'],
    ['a +03 zone (read as +03:00)', '2025-09-17T14:05:04.805+03', '2025-09-17T11:05:04.805Z'],
    ['a -05 zone', '2025-09-17T14:05:04-05', '2025-09-17T19:05:04.000Z'],
    ['nanoseconds', '2024-05-01T10:00:00.123456789Z', '2024-05-01T10:00:00.123Z'],
    ['no zone (UTC)', '2024-05-01T10:00:00', '2024-05-01T10:00:00.000Z'],
    ['a space and minutes only', '2021-04-30 21:14', '2021-04-30T21:14:00.000Z'],
    ['a space and a zone', '2014-04-26 13:13:43 +0800', '2014-04-26T05:13:43.000Z'],
    ['a date only', '2021-02-21', '2021-02-21T00:00:00.000Z'],
    ['a date and UTC', '2021-02-21 UTC', '2021-02-21T00:00:00.000Z'],
    ['epoch seconds as digits', '1511648546', '2017-11-25T22:22:26.000Z'],
    ['epoch milliseconds as digits', '1620021848429', '2021-05-03T06:04:08.429Z'],
    ['epoch nanoseconds as digits', '1620024872717915000', '2021-05-03T06:54:32.717Z'],
    ['RFC 2822', 'Wed, 02 Jun 2021 06:31:39 GMT', '2021-06-02T06:31:39.000Z'],
    ['US slashes', '05/01/2024', '2024-05-01T00:00:00.000Z'],
    ['year first slashes', '2024/05/01 10:00', '2024-05-01T10:00:00.000Z'],
    ['year 0001', '0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
  ])('%s', (_name, text, expected) => {
    const ms = parseEventDate(text);
    expect(ms === undefined ? undefined : iso(ms)).toBe(expected);
  });

  it.each([
    ['words', 'yesterday'],
    ['an empty text', ''],
    ['a month 13', '2024-13-01T00:00:00Z'],
    ['February 30th', '2024-02-30'],
    ['11 digits', '15116485460'],
    ['a T time without seconds but with a zone', '2024-05-01T10:00Z'],
    ['spaces around', ' 2024-05-01T10:00:00Z'],
  ])('cannot read %s', (_name, text) => {
    expect(parseEventDate(text)).toBeUndefined();
  });
});

describe('resolveTimestamp: precedence, limits and warnings', () => {
  const sentAt = NOW - 60_000;
  it.each([
    ['a timestamp', { timestamp: '2024-05-01T10:00:00.000Z' }, undefined, '2024-05-01T10:00:00.000Z', undefined],
    ['clock skew from sent_at', { timestamp: '2024-05-01T10:00:00.000Z' }, sentAt, '2024-05-01T10:01:00.000Z', undefined],
    ['$ignore_sent_at', { timestamp: '2024-05-01T10:00:00.000Z', ignoreSentAt: true }, sentAt, '2024-05-01T10:00:00.000Z', undefined],
    ['offset alone', { offset: 5000 }, undefined, '2025-06-01T11:59:55.000Z', undefined],
    ['offset wins over timestamp', { timestamp: '2024-05-01T10:00:00.000Z', offset: 5000 }, sentAt, '2025-06-01T11:59:55.000Z', undefined],
    ['nothing: now', {}, undefined, '2025-06-01T12:00:00.000Z', undefined],
    ['unreadable: now, with a warning', { timestamp: 'garbage' }, undefined, '2025-06-01T12:00:00.000Z', 'ignored_invalid_timestamp'],
    ['22 hours ahead is kept', { timestamp: '2025-06-02T10:00:00.000Z' }, undefined, '2025-06-02T10:00:00.000Z', undefined],
    ['more than 23 hours ahead: now', { timestamp: '2025-06-02T11:00:00.001Z' }, undefined, '2025-06-01T12:00:00.000Z', 'event_timestamp_in_future'],
    ['a negative offset into the far future: now', { offset: -86_400_000 * 2 }, undefined, '2025-06-01T12:00:00.000Z', 'event_timestamp_in_future'],
    ['a year before 0: the epoch', { offset: 8.64e13 }, undefined, '1970-01-01T00:00:00.000Z', undefined],
    ['a timestamp before year 0 by skew: the epoch', { timestamp: '0000-01-01T00:00:00Z' }, NOW + 86_400_000, '1970-01-01T00:00:00.000Z', undefined],
  ])('%s', (_name, fields, sentAtMs, expected, warning) => {
    const resolved = resolveTimestamp({ ignoreSentAt: false, ...fields }, NOW, sentAtMs);
    expect(iso(resolved.ms)).toBe(expected);
    expect(resolved.warning).toBe(warning);
  });
});
