/** GeoIP as the sandbox models PostHog's: the event's $ip or the sender's address, unless disabled. */
import { describe, expect, it } from 'vitest';
import { sandboxLocation } from '../../src/sandbox/capture/sandbox-geoip.js';
import { useIngestion } from '../helpers/ingestion.js';

const SANDBOX_PLACE = { $geoip_city_name: 'Sandbox City', $geoip_country_code: 'ZZ', $geoip_country_name: 'Sandbox', $geoip_time_zone: 'UTC' };
const GEO_KEYS = (props: Record<string, unknown>) => Object.keys(props).filter((k) => k.includes('geoip_') && k !== '$geoip_disable');

describe('GeoIP on events and persons', () => {
  const ingestion = useIngestion();

  it.each([
    ['no $ip: the sender address, located', { a: 1 }, '127.0.0.1', true],
    ['an empty $ip: replaced by the sender address', { $ip: '' }, '127.0.0.1', true],
    ['an $ip of its own: kept, and located', { $ip: '203.0.113.7' }, '203.0.113.7', true],
    ['$geoip_disable: true: $ip filled, nothing located', { $geoip_disable: true }, '127.0.0.1', false],
    ['$geoip_disable: "yes" (truthy) also disables', { $geoip_disable: 'yes' }, '127.0.0.1', false],
    ['an $ip that is not an address: nothing located', { $ip: 'unknown' }, 'unknown', false],
  ])('%s', (_name, properties, ip, located) => {
    const sandbox = ingestion();
    sandbox.send({ event: 'e', properties });
    const [stored] = sandbox.events();
    expect(stored!.properties.$ip).toBe(ip);
    if (located) {
      expect(stored!.properties).toMatchObject({ ...SANDBOX_PLACE, $geoip_latitude: sandboxLocation(ip)!.latitude });
      expect(stored!.personProperties).toMatchObject({ ...SANDBOX_PLACE, $initial_geoip_city_name: 'Sandbox City', $geoip_postal_code: null, $initial_geoip_postal_code: null });
    } else {
      expect(GEO_KEYS(stored!.properties)).toEqual([]);
      expect(GEO_KEYS(stored!.personProperties)).toEqual([]);
    }
  });

  it('overwrites the vendor geography it looks up (as PostHog does) unless disabled; keys it does not look up stay', () => {
    const sandbox = ingestion();
    const vendor = { $geoip_city_name: 'Tokyo', $geoip_country_code: 'JP', $geoip_subdivision_1_name: 'Kanto' };
    sandbox.send({ event: 'located', properties: vendor }, { event: 'kept', properties: { ...vendor, $geoip_disable: true } });
    const [located, kept] = sandbox.events();
    expect(located!.properties).toMatchObject({ $geoip_city_name: 'Sandbox City', $geoip_country_code: 'ZZ', $geoip_subdivision_1_name: 'Kanto' });
    expect(kept!.properties).toMatchObject(vendor);
  });

  it('keeps the first location in $initial_geoip_* and the latest in $geoip_*', () => {
    const sandbox = ingestion();
    sandbox.send({ event: 'a', properties: { $ip: '203.0.113.7' } });
    sandbox.send({ event: 'b', properties: { $ip: '198.51.100.9' } });
    expect(sandbox.person('u')!.properties).toMatchObject({
      $geoip_latitude: sandboxLocation('198.51.100.9')!.latitude,
      $initial_geoip_latitude: sandboxLocation('203.0.113.7')!.latitude,
    });
  });

  it('locates every valid address the same way, IPv6 included, and nothing else', () => {
    expect(sandboxLocation('2001:db8::1')).toMatchObject({ city_name: 'Sandbox City', country_code: 'ZZ' });
    expect(sandboxLocation('2001:db8::1')).toEqual(sandboxLocation('2001:db8::1'));
    expect(sandboxLocation('999.1.1.1')).toBeUndefined();
  });
});
