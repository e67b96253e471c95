/**
 * Setting a key taken from the data on an object. `object[key] = value` with the key
 * `__proto__` replaces the object's prototype instead of adding the key: the property vanishes
 * from the staged JSON, and the value's own keys show through as if inherited. Mappers that
 * copy source keys into new objects set them with this.
 */

/** Sets `key` on `target` as an own, enumerable data property, whatever the key. */
export function setOwnProperty(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}
