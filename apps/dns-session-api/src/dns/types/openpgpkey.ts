import { defineType } from './define';

export const OPENPGPKEY = defineType({
  type: 'OPENPGPKEY',
  code: 61,
  rfcs: [7929],
  description: 'an OpenPGP public key (owner: <sha256 of the local part, 28 octets hex>._openpgpkey.<domain>)',
  fields: [{ name: 'public_key', kind: 'base64', description: 'the transferable public key in base64' }],
});
