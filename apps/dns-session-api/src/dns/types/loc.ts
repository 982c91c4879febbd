import { defineType } from './define';

export const LOC = defineType({
  type: 'LOC',
  code: 29,
  rfcs: [1876],
  description: 'geographical location',
  fields: [{
    name: 'location', kind: 'loc',
    description: 'd [m [s]] N|S d [m [s]] E|W altitude[m] [size[m] [horizontal precision[m] [vertical precision[m]]]], e.g. "52 22 23 N 4 53 32 E -2m"',
  }],
});
