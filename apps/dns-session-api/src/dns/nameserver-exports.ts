// The zone-file formats and servers a nameserver can be published as (NicTool's export types).
export const NAMESERVER_EXPORT_TYPES = ['bind', 'nsd', 'knot', 'powerdns', 'tinydns'] as const;
export type NameserverExportType = (typeof NAMESERVER_EXPORT_TYPES)[number];
