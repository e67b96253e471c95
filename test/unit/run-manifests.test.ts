/** PostHog batch-export run manifests: which files of a folder or prefix are read, which are missing. */
import { describe, expect, it } from 'vitest';
import { checkRunManifests, manifestNotices, parseManifest, type RunManifest } from '../../src/sources/run-manifests.js';

const RUN = 'ev/2024-01-01T00:00:00+00:00-2024-01-02T00:00:00+00:00';
const manifest = (files: string[]): RunManifest => ({ key: `${RUN}_manifest.json`, files });

describe('run manifests', () => {
  it.each([
    ['no manifest: every file is read', [`${RUN}-0.jsonl`, 'other.jsonl'], [], { kept: [`${RUN}-0.jsonl`, 'other.jsonl'], leftOut: [], missing: [], unlisted: [] }],
    [
      'every listed file there',
      [`${RUN}-0.jsonl`, `${RUN}-1.jsonl`],
      [manifest([`${RUN}-0.jsonl`, `${RUN}-1.jsonl`])],
      { kept: [`${RUN}-0.jsonl`, `${RUN}-1.jsonl`], leftOut: [], missing: [], unlisted: [] },
    ],
    [
      'a listed file missing: the others kept',
      [`${RUN}-0.jsonl`],
      [manifest([`${RUN}-0.jsonl`, `${RUN}-1.jsonl`])],
      { kept: [`${RUN}-0.jsonl`], missing: [{ manifest: `${RUN}_manifest.json`, file: `${RUN}-1.jsonl` }] },
    ],
    ['a file of the run not listed: left out', [`${RUN}-0.jsonl`, `${RUN}-9.jsonl`], [manifest([`${RUN}-0.jsonl`])], { kept: [`${RUN}-0.jsonl`], leftOut: [`${RUN}-9.jsonl`] }],
    ['a file of no run: read and reported', [`${RUN}-0.jsonl`, 'ev/late.jsonl'], [manifest([`${RUN}-0.jsonl`])], { kept: [`${RUN}-0.jsonl`, 'ev/late.jsonl'], unlisted: ['ev/late.jsonl'] }],
  ])('%s', (_, data, manifests, expected) => {
    expect(checkRunManifests([...data, ...manifests.map((m) => m.key)], data, manifests)).toMatchObject(expected);
  });

  it('a listed file there but not a data file of the format is not missing', () => {
    expect(checkRunManifests([`${RUN}-0.jsonl`, `${RUN}-1.bin`], [`${RUN}-0.jsonl`], [manifest([`${RUN}-0.jsonl`, `${RUN}-1.bin`])]).missing).toEqual([]);
  });

  it.each([
    ['{"files":["a","b"]}', ['a', 'b']],
    ['{"files":[1]}', { error: 'm: a manifest without a "files" list of keys' }],
    ['{}', { error: 'm: a manifest without a "files" list of keys' }],
    ['not json', { error: expect.stringMatching(/^m: a manifest that is not JSON/) }],
  ])('parses %s', (text, expected) => {
    expect(parseManifest(text, 'm')).toEqual(expected);
  });

  it('tells what was left out one by one and files of no run in one line', () => {
    expect(manifestNotices({ kept: [], leftOut: ['a'], missing: [], unlisted: ['b', 'c'] }, (key) => `/x/${key}`)).toEqual([
      "note: /x/a: left out, its run's manifest does not list it",
      "note: 2 files of no run's manifest read as well, e.g. /x/b",
    ]);
  });
});
