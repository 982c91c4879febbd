// Builds the fixture zone holding every record type, as validated records.
import { toAbsolute, validateRecord, ZoneRecord } from '../../src/dns';
import { supportRecords, typeFixtures, ZONE } from './fixtures';

export function fixtureRecords(): ZoneRecord[] {
  const inputs = [
    ...typeFixtures.map((f) => ({ owner: f.owner, type: f.type, ttl: 3600, rdata: f.input })),
    ...supportRecords.map((r) => ({ ...r, rdata: { ...r.rdata } })),
  ];
  return inputs.map((input) => {
    const { record, errors } = validateRecord(ZONE, input);
    if (!record) throw new Error(`fixture ${input.type} ${input.owner}: ${JSON.stringify(errors)}`);
    return record;
  });
}

export const fixtureZone = () => ({
  name: ZONE,
  ttl: 3600,
  soa: { rname: 'hostmaster.example.com.', serial: 2026112301, refresh: 86400, retry: 7200, expire: 1209600, minimum: 3600 },
  nameservers: [{ name: toAbsolute('ns1', ZONE), address: '192.0.2.1' }, { name: 'ns2.example.net.' }],
  records: fixtureRecords(),
});
