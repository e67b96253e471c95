/**
 * The careful JSON parser: the same grammar as JSON.parse, without recursion (an explicit stack,
 * so 200,000 levels of `[` give a problem, not a RangeError), with numbers kept exact (see
 * json-numbers.ts), nesting bounded, lone surrogates refused and syntax errors located. Slower
 * than JSON.parse; parseJson sends it only the texts that may need it.
 */
import { jsonDepth } from './json-depth.js';
import { describeChar, describeOffset, formatPath, type JsonProblem, type JsonProblemReason, type PathSegment } from './json-problem.js';
import { floatValue, integerValue } from './json-numbers.js';
import { isWellFormed, readJsonString } from './json-string-reader.js';
import type { JsonArray, JsonObject, JsonParseResult, JsonReadOptions, JsonValue } from './json-value.js';
import { CAPTURE_JSON_DEPTH_LIMIT } from '../posthog/limits.js';

const FAIL: unique symbol = Symbol('fail');
type Read = JsonValue | typeof FAIL;

const STRING_ERRORS: Record<string, string> = {
  control: 'a control character must be escaped in a string',
  escape: 'invalid escape in a string',
  unicode: '\\u must be followed by four hexadecimal digits',
};

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Parses `text` carefully; see the module comment. */
export function parseJsonCarefully(text: string, options: JsonReadOptions = {}): JsonParseResult {
  return new CarefulParser(text, options).parse();
}

class CarefulParser {
  private pos = 0;
  private problem: JsonProblem | undefined;
  /** Open containers, outermost first, with where each opened and (objects) the key being read. */
  private readonly containers: Array<JsonArray | JsonObject> = [];
  private readonly opened: number[] = [];
  private readonly keys: string[] = [];
  private readonly maxDepth: number;

  constructor(
    private readonly text: string,
    private readonly options: JsonReadOptions,
  ) {
    this.maxDepth = options.maxDepth ?? CAPTURE_JSON_DEPTH_LIMIT;
  }

  parse(): JsonParseResult {
    this.skipSpace();
    let value = this.value();
    while (value !== FAIL) {
      const depth = this.containers.length;
      if (depth === 0) return this.finish(value);
      const container = this.containers[depth - 1]!;
      value = Array.isArray(container) ? this.afterElement(container, value) : this.afterMember(container, value);
    }
    return { ok: false, problem: this.problem! };
  }

  private finish(value: JsonValue): JsonParseResult {
    this.skipSpace();
    if (this.pos < this.text.length) return { ok: false, problem: this.syntax(`unexpected ${describeChar(this.text, this.pos)} at ${this.where(this.pos)}, after the JSON value`) };
    return { ok: true, value };
  }

  /** Stores an array element; then the next element's value, or the array itself once closed. */
  private afterElement(array: JsonArray, element: JsonValue): Read {
    array.push(element);
    return this.separator(false);
  }

  /** Stores an object member; then the next member's value, or the object itself once closed. */
  private afterMember(object: JsonObject, value: JsonValue): Read {
    const key = this.keys[this.keys.length - 1]!;
    if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
    else object[key] = value;
    return this.separator(true);
  }

  /** After a value in a container: `,` and the next value, or the closing bracket. */
  private separator(inObject: boolean): Read {
    this.skipSpace();
    const c = this.text.charCodeAt(this.pos);
    if (c === 0x2c /* , */) {
      this.pos++;
      this.skipSpace();
      return inObject ? this.member() : this.value();
    }
    if (c === (inObject ? 0x7d : 0x5d)) return this.close();
    return this.fail(this.expected(inObject ? "',' or '}' after a property value" : "',' or ']' after an array element"));
  }

  /** Reads `"key":` and then the member's value. */
  private member(): Read {
    if (this.text.charCodeAt(this.pos) !== 0x22) return this.fail(this.expected('a property name in double quotes'));
    const key = this.string(true);
    if (key === FAIL) return FAIL;
    this.keys[this.keys.length - 1] = key as string;
    this.skipSpace();
    if (this.text.charCodeAt(this.pos) !== 0x3a /* : */) return this.fail(this.expected("':' after a property name"));
    this.pos++;
    this.skipSpace();
    return this.value();
  }

  private close(): JsonValue {
    this.pos++;
    this.opened.pop();
    if (!Array.isArray(this.containers[this.containers.length - 1])) this.keys.pop();
    return this.containers.pop()!;
  }

  /** A value starting at `pos`; a container is opened and its first value read instead. */
  private value(): Read {
    const c = this.text.charCodeAt(this.pos);
    switch (c) {
      case 0x22 /* " */:
        return this.string(false);
      case 0x7b /* { */:
        return this.open(true);
      case 0x5b /* [ */:
        return this.open(false);
      case 0x74 /* t */:
        return this.literal('true', true);
      case 0x66 /* f */:
        return this.literal('false', false);
      case 0x6e /* n */:
        return this.literal('null', null);
      default:
        return isDigit(c) || c === 0x2d /* - */ ? this.number() : this.fail(this.expected('a value'));
    }
  }

  private literal(word: string, value: JsonValue): Read {
    if (!this.text.startsWith(word, this.pos)) return this.fail(this.expected('a value'));
    this.pos += word.length;
    return value;
  }

  private open(isObject: boolean): Read {
    if (this.containers.length >= this.maxDepth) return this.tooDeep();
    const container: JsonArray | JsonObject = isObject ? {} : [];
    this.opened.push(this.pos);
    this.pos++;
    this.skipSpace();
    const empty = this.text.charCodeAt(this.pos) === (isObject ? 0x7d : 0x5d);
    this.containers.push(container);
    if (isObject) this.keys.push('');
    if (empty) return this.close();
    return isObject ? this.member() : this.value();
  }

  private string(isKey: boolean): Read {
    const read = readJsonString(this.text, this.pos);
    if (read.error !== undefined) {
      if (read.error === 'unterminated') return this.fail(this.syntax(`the text ends inside the string that starts at ${this.where(this.pos)}`, read.end));
      return this.fail(this.syntax(`${STRING_ERRORS[read.error]} at ${this.where(read.end)}`, read.end));
    }
    if (read.surrogates && !isWellFormed(read.value)) {
      const path = isKey ? [...this.path().slice(0, -1), read.value] : this.path();
      const what = isKey ? 'a property name' : 'a string';
      return this.fail(this.problemAt('invalid_unicode', path, `${what} at ${this.where(this.pos)} holds a lone UTF-16 surrogate (half of a pair); PostHog refuses it`, this.pos));
    }
    this.pos = read.end;
    return read.value;
  }

  private number(): Read {
    const t = this.text;
    const start = this.pos;
    let i = start;
    if (t.charCodeAt(i) === 0x2d) i++;
    if (t.charCodeAt(i) === 0x30 /* 0 */) {
      if (isDigit(t.charCodeAt(++i))) return this.fail(this.syntax(`a number cannot start with 0 followed by digits at ${this.where(start)}`, i));
    } else if (isDigit(t.charCodeAt(i))) {
      while (isDigit(t.charCodeAt(++i)));
    } else return this.fail(this.syntax(`expected a digit after '-' at ${this.where(i)}`, i));
    let integer = true;
    if (t.charCodeAt(i) === 0x2e /* . */) {
      integer = false;
      if (!isDigit(t.charCodeAt(++i))) return this.fail(this.syntax(`expected a digit after the decimal point at ${this.where(i)}`, i));
      while (isDigit(t.charCodeAt(++i)));
    }
    const e = t.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      integer = false;
      const sign = t.charCodeAt(++i);
      if (sign === 0x2b || sign === 0x2d) i++;
      if (!isDigit(t.charCodeAt(i))) return this.fail(this.syntax(`expected a digit in the exponent at ${this.where(i)}`, i));
      while (isDigit(t.charCodeAt(++i)));
    }
    const source = t.slice(start, i);
    const value = integer ? integerValue(source, this.options) : floatValue(source, this.options);
    if (value === undefined) {
      const shown = source.length > 40 ? `${source.slice(0, 20)}...${source.slice(-10)} (${source.length} characters)` : source;
      const range = integer ? 'beyond 64 bits' : 'beyond the range of a 64-bit float';
      return this.fail(this.problemAt('number_out_of_range', this.path(), `the number ${shown} at ${this.where(start)} is ${range}; PostHog cannot keep it`, start));
    }
    this.pos = i;
    return value;
  }

  private tooDeep(): typeof FAIL {
    const depth = Math.max(jsonDepth(this.text), this.containers.length + 1);
    const message = `the JSON nests ${depth} levels deep (more than ${this.maxDepth} at ${this.where(this.pos)}); PostHog accepts at most ${this.maxDepth}`;
    return this.fail({ ...this.problemAt('too_deep', this.path(), message, this.pos), depth });
  }

  /** The path of the value being read: each open container's current key or index. */
  private path(): PathSegment[] {
    const path: PathSegment[] = [];
    let k = 0;
    for (const container of this.containers) path.push(Array.isArray(container) ? container.length : this.keys[k++]!);
    return path;
  }

  private skipSpace(): void {
    const text = this.text;
    let pos = this.pos;
    while (isSpace(text.charCodeAt(pos))) pos++;
    this.pos = pos;
  }

  private where(offset: number): string {
    return describeOffset(this.text, offset, this.options.firstLine);
  }

  private expected(what: string): JsonProblem {
    if (this.pos >= this.text.length) {
      if (this.containers.length === 0) return this.syntax(`the text ends at ${this.where(this.pos)}; expected ${what}`);
      const kind = Array.isArray(this.containers[this.containers.length - 1]) ? 'array' : 'object';
      return this.syntax(`the text ends before the ${kind} opened at ${this.where(this.opened[this.opened.length - 1]!)} is closed (expected ${what})`);
    }
    return this.syntax(`unexpected ${describeChar(this.text, this.pos)} at ${this.where(this.pos)}; expected ${what}`);
  }

  private syntax(message: string, offset = this.pos): JsonProblem {
    return this.problemAt('bad_json', [], `not valid JSON: ${message}`, offset);
  }

  private problemAt(reason: JsonProblemReason, path: PathSegment[], message: string, offset: number): JsonProblem {
    return { reason, field: formatPath(path), message, offset };
  }

  private fail(problem: JsonProblem): typeof FAIL {
    this.problem = problem;
    return FAIL;
  }
}
