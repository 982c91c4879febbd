// What an assertion says about the user, in GoTrue's terms: the claims of a provider's attribute_mapping
// ({"keys": {"<claim>": {"name", "names", "default", "array"}}}), the user's stable ID and the e-mail address.
import { z } from 'zod';
import type { SamlAttributeMappingJson } from '@keyzone/db';

const MappedAttribute = z.object({
  name: z.string().optional(),
  names: z.array(z.string()).optional(),
  default: z.unknown().optional(),
  array: z.boolean().optional(),
}).strict();

export const AttributeMapping = z.object({
  keys: z.record(z.string().min(1), MappedAttribute).optional(),
}).strict();

/** Attribute values by attribute name, as the assertion carried them (one or several strings each). */
export type AssertionAttributes = Record<string, string[]>;

export const NameIdFormat = {
  persistent: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  transient: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
  emailAddress: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  unspecified: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
} as const;

/** The SAML subject-id attribute (SAML V2.0 Subject Identifier Attributes Profile): preferred over the NameID. */
const SUBJECT_ID = 'urn:oasis:names:tc:SAML:attribute:subject-id';

/** Where IdPs put the address when no mapping says (Entra ID / ADFS claim URIs, the LDAP mail OID, plain names). */
const EMAIL_ATTRIBUTES = [
  'urn:oid:0.9.2342.19200300.100.1.3',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
  'http://schemas.xmlsoap.org/claims/EmailAddress',
  'mail',
  'Mail',
  'email',
  'Email',
];

function firstValues(attributes: AssertionAttributes, names: string[]): string[] | undefined {
  for (const name of names) {
    const values = attributes[name];
    if (values && values.length > 0) return values;
  }
  return undefined;
}

/** The claims a mapping asks for: the first attribute found among `name` and `names`, all values with `array`, else `default`. */
export function mappedClaims(attributes: AssertionAttributes, mapping: SamlAttributeMappingJson | null): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  for (const [claim, spec] of Object.entries(mapping?.keys ?? {})) {
    const names = [spec.name, ...(spec.names ?? [])].filter((n): n is string => typeof n === 'string' && n !== '');
    const values = firstValues(attributes, names);
    if (values) claims[claim] = spec.array ? values : values[0];
    else if (spec.default !== undefined) claims[claim] = spec.default;
  }
  return claims;
}

export interface Subject {
  nameId: string | undefined;
  nameIdFormat: string | undefined;
}

/**
 * The user's stable ID at the IdP: the subject-id attribute, else the NameID unless it is transient (a new one per
 * sign-in would make a new user each time). Undefined when there is none.
 */
export function userIdOf(attributes: AssertionAttributes, subject: Subject): string | undefined {
  const subjectId = attributes[SUBJECT_ID]?.[0];
  if (subjectId) return subjectId;
  if (subject.nameId && subject.nameIdFormat !== NameIdFormat.transient) return subject.nameId;
  return undefined;
}

/** The address: the mapping's `email` claim, else a well-known e-mail attribute, else an emailAddress-format NameID. */
export function emailOf(claims: Record<string, unknown>, attributes: AssertionAttributes, subject: Subject): string | undefined {
  if (typeof claims.email === 'string' && claims.email !== '') return claims.email;
  const fromAttributes = firstValues(attributes, EMAIL_ATTRIBUTES)?.[0];
  if (fromAttributes) return fromAttributes;
  if (subject.nameId && subject.nameIdFormat === NameIdFormat.emailAddress) return subject.nameId;
  return undefined;
}
