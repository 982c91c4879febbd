import { fieldError } from '../errors';
import { defineType } from './define';

export const URI = defineType({
  type: 'URI',
  code: 256,
  rfcs: [7553],
  description: 'a URI for a service (owner like _http._tcp), chosen by priority then weight',
  fields: [
    { name: 'priority', kind: 'uint16', description: 'lower is tried first' },
    { name: 'weight', kind: 'uint16', description: 'relative weight among equal priorities' },
    { name: 'target', kind: 'value', description: 'the URI (quoted in zone files)' },
  ],
  rules: (r) => (/^[a-z][a-z0-9+.-]*:\S+$/i.test(String(r.target)) ? [] : [fieldError('target', 'uri_target', 'target must be an absolute URI (scheme:...)')]),
});
