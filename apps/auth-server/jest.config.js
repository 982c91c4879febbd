const preset = require('../../jest.preset.js')(__dirname);

// PGlite's CommonJS build loads Node built-ins with import(), which jest's module sandbox rejects
// without --experimental-vm-modules; SWC compiles those files too (as packages/db does).
module.exports = {
  ...preset,
  transform: {
    ...preset.transform,
    '^.+/@electric-sql/pglite/dist/.+\\.cjs$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' }, isModule: true }],
  },
  transformIgnorePatterns: ['/node_modules/(?!\\.pnpm/@electric-sql\\+pglite|@electric-sql/pglite)'],
};
