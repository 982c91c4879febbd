// One spelling of "is a UUID", for ids from paths, bodies and states that must reach a uuid column: anything else
// is answered as not found (or a 400), never a cast error from PostgreSQL.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
