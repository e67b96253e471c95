import { describe, expect, it } from 'vitest';
import { exportRequest, exportsPaging } from '../../src/cli/commands/exports/export-args.js';
import { parseGroupTypeIndex } from '../../src/cli/commands/groups/group-args.js';
import { parseMemberLevel, parseUserUuid } from '../../src/cli/commands/members/member-args.js';

describe('parseUserUuid', () => {
  it.each([
    ['01930000-0000-7000-8000-0000000000b4', '01930000-0000-7000-8000-0000000000b4'],
    ['01930000-0000-7000-8000-0000000000B4', '01930000-0000-7000-8000-0000000000b4'],
  ])('accepts %s', (input, expected) => expect(parseUserUuid(input)).toBe(expected));

  it.each(['', 'ada@sandbox.local', '01930000-0000-7000-8000-0000000000b', '01930000000070008000000000000b4', '../../etc/passwd'])('refuses %j', (input) => {
    expect(() => parseUserUuid(input)).toThrow(/is not a user uuid/);
  });
});

describe('parseMemberLevel', () => {
  it.each([
    ['1', 1],
    ['8', 8],
  ])('accepts %s', (input, expected) => expect(parseMemberLevel(input)).toBe(expected));
  it.each(['0', '15', 'admin', '8.0', ' 8', ''])('refuses %j', (input) => expect(() => parseMemberLevel(input)).toThrow(/1 \(member\) or 8/));
});

describe('parseGroupTypeIndex', () => {
  it.each([
    ['0', 0],
    ['4', 4],
  ])('accepts %s', (input, expected) => expect(parseGroupTypeIndex(input)).toBe(expected));
  it.each(['5', '-1', 'company', '1.5', ''])('refuses %j', (input) => expect(() => parseGroupTypeIndex(input)).toThrow(/from 0 to 4/));
});

describe('exportsPaging', () => {
  it.each([
    [{}, { all: false, limit: undefined, offset: undefined }],
    [{ limit: 10 }, { all: false, limit: 10, offset: undefined }],
    [
      { limit: 10, offset: 20 },
      { all: false, limit: 10, offset: 20 },
    ],
    [{ all: true }, { all: true }],
  ])('%j -> %j', (input, expected) => expect(exportsPaging(input)).toEqual(expected));

  it.each([
    { all: true, limit: 5 },
    { all: true, offset: 0 },
  ])('refuses %j', (input) => {
    expect(() => exportsPaging(input)).toThrow('--all reads every page; give it without --limit and --offset');
  });
});

describe('exportRequest', () => {
  it.each([
    [
      { insight: 1, format: 'image/png' },
      { export_format: 'image/png', insight: 1 },
    ],
    [
      { dashboard: 3, format: 'application/pdf' },
      { export_format: 'application/pdf', dashboard: 3 },
    ],
    [
      { context: '{"title":"Signups"}', format: 'text/csv' },
      { export_format: 'text/csv', export_context: { title: 'Signups' } },
    ],
  ])('%j -> %j', (input, expected) => expect(exportRequest(input)).toEqual(expected));

  it.each([
    [{ format: 'image/png' }, /exactly one of --dashboard/],
    [{ insight: 1, dashboard: 1, format: 'image/png' }, /exactly one of --dashboard/],
    [{ insight: 1, context: '{}', format: 'image/png' }, /exactly one of --dashboard/],
    [{ insight: 1, format: 'image/jpeg' }, /--format image\/jpeg: use one of image\/png/],
    [{ context: '{title', format: 'text/csv' }, /--context: not valid JSON/],
    [{ context: '[1,2]', format: 'text/csv' }, /--context: must be a JSON object/],
    [{ context: 'null', format: 'text/csv' }, /--context: must be a JSON object/],
  ])('refuses %j', (input, message) => expect(() => exportRequest(input)).toThrow(message));
});
