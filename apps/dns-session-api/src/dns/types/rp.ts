import { defineType } from './define';

export const RP = defineType({
  type: 'RP',
  code: 17,
  rfcs: [1183],
  description: 'responsible person: a mailbox and a name holding TXT about them',
  fields: [
    { name: 'mbox', kind: 'name', root: true, mailbox: true, description: 'the mailbox as a name (hostmaster.example.com.), or "."' },
    { name: 'txt', kind: 'name', root: true, description: 'a name with TXT records about the person, or "."' },
  ],
});
