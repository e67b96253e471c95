import { describe, expect, it } from 'vitest';
import { distinctIdText, serdeNumberText } from '../../src/sandbox/capture/distinct-id.js';

describe('serdeNumberText: a JSON number written back as serde_json writes it', () => {
  it.each([
    ['9007199254740993', '9007199254740993'],
    ['18446744073709551615', '18446744073709551615'],
    ['-9223372036854775808', '-9223372036854775808'],
    ['18446744073709551616', '1.8446744073709552e19'],
    ['0', '0'],
    ['-0', '-0.0'],
    ['1.0', '1.0'],
    ['1.50', '1.5'],
    ['23.4', '23.4'],
    ['1e2', '100.0'],
    ['1E16', '1e16'],
    ['1.5e20', '1.5e20'],
    ['123456789012345.6', '123456789012345.6'],
    ['0.001', '0.001'],
    ['0.00001', '0.00001'],
    ['0.000001', '1e-6'],
    ['-2.5e-7', '-2.5e-7'],
  ])('%s is stored as %s', (source, expected) => {
    expect(serdeNumberText(source)).toBe(expected);
  });
});

describe('distinctIdText', () => {
  it.each([
    ['a string as sent', 'ana', undefined, 'ana'],
    ['NUL replaced by U+FFFD', 'a\0b', undefined, 'a\uFFFDb'],
    ['a number from its source text', 9007199254740992, '9007199254740993', '9007199254740993'],
    ['a number without source text', 42, undefined, '42'],
    ['true', true, undefined, 'true'],
    ['an array', ['a', 'b'], undefined, '["a","b"]'],
    ['an object, keys sorted', { string: 'a', number: 3 }, undefined, '{"number":3,"string":"a"}'],
    ['cut at 200 characters', 'x'.repeat(201), undefined, 'x'.repeat(200)],
  ])('%s', (_name, value, source, expected) => {
    expect(distinctIdText(value, source)).toBe(expected);
  });
});
