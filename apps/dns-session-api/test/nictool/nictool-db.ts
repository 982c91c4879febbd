// A NicTool-shaped MySQL/MariaDB database for the import tests: the tables and columns import-nictool reads
// (reference §4.1), a fresh database per test file on TEST_MYSQL_URL's server, dropped afterwards.
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';

export const MYSQL_URL = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';

const SCHEMA = [
  `create table nt_group (nt_group_id int unsigned not null auto_increment primary key, parent_group_id int unsigned not null default 0,
     name varchar(255) not null, deleted tinyint(1) unsigned not null default 0) character set utf8mb4 collate utf8mb4_bin`,
  `create table nt_user (nt_user_id int unsigned not null auto_increment primary key, nt_group_id int unsigned not null,
     first_name varchar(120), last_name varchar(160), username varchar(200) not null, password varchar(1020) not null,
     pass_salt varchar(16), email varchar(400) not null, is_admin tinyint(1) unsigned, deleted tinyint(1) unsigned not null default 0)
     character set utf8mb4 collate utf8mb4_bin`,
  `create table nt_nameserver_export_type (id tinyint unsigned not null primary key, name varchar(16) not null, descr varchar(56), url varchar(128))`,
  `create table nt_nameserver (nt_nameserver_id smallint unsigned not null auto_increment primary key, nt_group_id int unsigned not null,
     name varchar(127) not null, ttl int unsigned, description varchar(255), address varchar(127) not null, address6 varchar(127),
     export_type_id int unsigned default 1, deleted tinyint(1) unsigned not null default 0)`,
  `create table nt_zone (nt_zone_id int unsigned not null auto_increment primary key, nt_group_id int unsigned not null, zone varchar(255) not null,
     mailaddr varchar(127), description varchar(255), serial int unsigned not null default 1, refresh int unsigned, retry int unsigned,
     expire int unsigned, minimum int unsigned, ttl int unsigned, deleted tinyint(1) unsigned not null default 0)`,
  `create table nt_zone_nameserver (nt_zone_id int unsigned not null, nt_nameserver_id smallint unsigned not null, unique (nt_zone_id, nt_nameserver_id))`,
  `create table nt_zone_record (nt_zone_record_id int unsigned not null auto_increment primary key, nt_zone_id int unsigned not null,
     name varchar(255) not null, ttl int unsigned not null default 0, description varchar(255), type_id smallint unsigned not null,
     address varchar(5120) not null, weight smallint unsigned, priority smallint unsigned, other varchar(512), deleted tinyint(1) unsigned not null default 0)`,
];

export interface NicToolDb {
  url: string;
  exec(sql: string, params?: unknown[]): Promise<void>;
  destroy(): Promise<void>;
}

export async function createNicToolDb(): Promise<NicToolDb> {
  const name = `nt_test_${randomBytes(4).toString('hex')}`;
  const admin = await mysql.createConnection({ uri: MYSQL_URL, multipleStatements: false });
  await admin.query(`create database ${name}`);
  const url = `${MYSQL_URL.replace(/\/$/, '')}/${name}`;
  const conn = await mysql.createConnection({ uri: url });
  for (const statement of SCHEMA) await conn.query(statement);
  await conn.query(
    "insert into nt_nameserver_export_type (id, name) values (1,'djbdns'),(2,'bind'),(3,'maradns'),(4,'powerdns'),(5,'bind-nsupdate'),(6,'nsd'),(7,'dynect'),(8,'knot')",
  );
  return {
    url,
    async exec(sql, params = []) {
      await conn.query(sql, params);
    },
    async destroy() {
      await conn.end();
      await admin.query(`drop database if exists ${name}`);
      await admin.end();
    },
  };
}
