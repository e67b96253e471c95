/** The HogQL verify sends: escaping (read back by the sandbox's tokenizer), the texts, and the time zones taken for UTC. */
import { describe, expect, it } from 'vitest';
import { tokenize } from '../../src/sandbox/api/query/hogql-tokens.js';
import { hogqlString, hogqlTime, uuidPageQuery } from '../../src/verify/hogql-text.js';

const DAY = Date.UTC(2025, 8, 1);

describe('hogqlString', () => {
  it.each<[string, string]>([
    ['plain', "'plain'"],
    ["it's", "'it\\'s'"],
    ['back\\slash', "'back\\\\slash'"],
    ["' OR 1 = 1 --", "'\\' OR 1 = 1 --'"],
    ['line\nbreak\ttab\rreturn', "'line\\nbreak\\ttab\\rreturn'"],
    ['nul\0 bs\b ff\f', "'nul\\0 bs\\b ff\\f'"],
    ['東京 ✓ 🎉', "'東京 ✓ 🎉'"],
    ['', "''"],
  ])('%j -> %s', (value, literal) => {
    expect(hogqlString(value)).toBe(literal);
  });

  it.each(["it's", 'a\\b', "'; DROP TABLE events; --", 'x\ny\r\tz\0\b\f', "\\'", '`"'])('is read back as exactly %j', (value) => {
    const [token, end] = tokenize(hogqlString(value));
    expect(token).toMatchObject({ type: 'string', text: value });
    expect(end!.type).toBe('end');
  });
});

describe('queries', () => {
  it('pages uuids by keyset', () => {
    expect(uuidPageQuery({ fromMs: DAY, toMs: DAY + 86_400_000, limit: 3 })).toBe(
      "SELECT DISTINCT uuid\nFROM events\nWHERE timestamp >= '2025-09-01T00:00:00.000Z' AND timestamp < '2025-09-02T00:00:00.000Z'\nORDER BY uuid\nLIMIT 3",
    );
    const after = '01930000-0000-7000-8000-0000000000b1';
    expect(uuidPageQuery({ fromMs: DAY, toMs: DAY + 1, after, limit: 3 })).toContain(`AND uuid > '${after}'\nORDER BY uuid`);
    expect(() => uuidPageQuery({ fromMs: DAY, toMs: DAY + 1, after: "x' OR '1'='1", limit: 3 })).toThrow(/not a lower-case uuid/);
  });

  it('writes times before 1970 as UTC instants', () => {
    expect(hogqlTime(Date.UTC(1969, 11, 31, 23, 59, 59, 999))).toBe("'1969-12-31T23:59:59.999Z'");
  });
});
