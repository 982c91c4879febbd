// Reading a NicTool 2.x/3.x database (MySQL or MariaDB) through mysql2: the rows import-nictool needs, with the
// deleted flags, in id order. Column names are NicTool's (reference §4.1); nothing here knows Keyzone's tables.
import mysql from 'mysql2/promise';

export interface NtGroup {
  id: number;
  parentId: number; // 0 = a top-level group
  name: string;
  deleted: boolean;
}

export interface NtUser {
  id: number;
  groupId: number;
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  password: string;
  salt: string | null;
  isAdmin: boolean;
  deleted: boolean;
}

export interface NtNameserver {
  id: number;
  groupId: number;
  name: string;
  address: string | null;
  address6: string | null;
  ttl: number | null;
  description: string;
  exportType: string | null; // nt_nameserver_export_type.name
  deleted: boolean;
}

export interface NtZone {
  id: number;
  groupId: number;
  zone: string;
  mailaddr: string | null;
  description: string;
  serial: number | null;
  refresh: number | null;
  retry: number | null;
  expire: number | null;
  minimum: number | null;
  ttl: number | null;
  deleted: boolean;
  nameserverIds: number[];
}

export interface NtRecord {
  id: number;
  name: string;
  ttl: number;
  description: string;
  typeId: number;
  address: string;
  weight: number | null;
  priority: number | null;
  other: string | null;
  deleted: boolean;
}

export interface NicToolSource {
  groups(): Promise<NtGroup[]>;
  users(): Promise<NtUser[]>;
  nameservers(): Promise<NtNameserver[]>;
  zones(): Promise<NtZone[]>;
  records(zoneId: number): Promise<NtRecord[]>;
  close(): Promise<void>;
}

type Row = Record<string, unknown>;
const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const flag = (v: unknown) => Number(v ?? 0) !== 0;

/** Opens `mysql://user:pass@host[:port]/database`; fails at once (with the server's reason) when it cannot. */
export async function openNicTool(url: string): Promise<NicToolSource> {
  const pool = mysql.createPool({ uri: url, connectionLimit: 2, dateStrings: true, supportBigNumbers: true, bigNumberStrings: false });
  const query = async (text: string, params: unknown[] = []): Promise<Row[]> => {
    const [rows] = await pool.query(text, params);
    return rows as Row[];
  };
  await query('select 1 from nt_group limit 1');
  return {
    async groups() {
      const rows = await query('select nt_group_id, parent_group_id, name, deleted from nt_group order by nt_group_id');
      return rows.map((r) => ({ id: Number(r.nt_group_id), parentId: Number(r.parent_group_id ?? 0), name: str(r.name), deleted: flag(r.deleted) }));
    },
    async users() {
      const rows = await query(
        'select nt_user_id, nt_group_id, username, email, first_name, last_name, password, pass_salt, is_admin, deleted from nt_user order by nt_user_id',
      );
      return rows.map((r) => ({
        id: Number(r.nt_user_id), groupId: Number(r.nt_group_id), username: str(r.username), email: str(r.email),
        firstName: str(r.first_name), lastName: str(r.last_name), password: str(r.password),
        salt: r.pass_salt === null || r.pass_salt === undefined || r.pass_salt === '' ? null : String(r.pass_salt),
        isAdmin: flag(r.is_admin), deleted: flag(r.deleted),
      }));
    },
    async nameservers() {
      const rows = await query(
        `select n.nt_nameserver_id, n.nt_group_id, n.name, n.address, n.address6, n.ttl, n.description, t.name as export_type, n.deleted
         from nt_nameserver n left join nt_nameserver_export_type t on t.id = n.export_type_id order by n.nt_nameserver_id`,
      );
      return rows.map((r) => ({
        id: Number(r.nt_nameserver_id), groupId: Number(r.nt_group_id), name: str(r.name),
        address: r.address ? String(r.address) : null, address6: r.address6 ? String(r.address6) : null,
        ttl: num(r.ttl), description: str(r.description), exportType: r.export_type ? String(r.export_type) : null, deleted: flag(r.deleted),
      }));
    },
    async zones() {
      const rows = await query(
        'select nt_zone_id, nt_group_id, zone, mailaddr, description, serial, refresh, retry, expire, minimum, ttl, deleted from nt_zone order by nt_zone_id',
      );
      const links = await query('select nt_zone_id, nt_nameserver_id from nt_zone_nameserver order by nt_zone_id, nt_nameserver_id');
      const byZone = new Map<number, number[]>();
      for (const l of links) byZone.set(Number(l.nt_zone_id), [...(byZone.get(Number(l.nt_zone_id)) ?? []), Number(l.nt_nameserver_id)]);
      return rows.map((r) => ({
        id: Number(r.nt_zone_id), groupId: Number(r.nt_group_id), zone: str(r.zone), mailaddr: r.mailaddr ? String(r.mailaddr) : null,
        description: str(r.description), serial: num(r.serial), refresh: num(r.refresh), retry: num(r.retry), expire: num(r.expire),
        minimum: num(r.minimum), ttl: num(r.ttl), deleted: flag(r.deleted), nameserverIds: byZone.get(Number(r.nt_zone_id)) ?? [],
      }));
    },
    async records(zoneId) {
      const rows = await query(
        `select nt_zone_record_id, name, ttl, description, type_id, address, weight, priority, other, deleted
         from nt_zone_record where nt_zone_id = ? order by nt_zone_record_id`,
        [zoneId],
      );
      return rows.map((r) => ({
        id: Number(r.nt_zone_record_id), name: str(r.name), ttl: Number(r.ttl ?? 0), description: str(r.description),
        typeId: Number(r.type_id), address: str(r.address), weight: num(r.weight), priority: num(r.priority),
        other: r.other === null || r.other === undefined ? null : String(r.other), deleted: flag(r.deleted),
      }));
    },
    close: () => pool.end(),
  };
}
