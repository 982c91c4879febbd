// Shared jest settings: SWC compiles TypeScript; workspace packages resolve to their sources so
// tests never run against a stale dist/.
const path = require('node:path');

const swc = ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }];

module.exports = function preset(dir) {
  return {
    rootDir: dir,
    testEnvironment: 'node',
    testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/src/**/*.test.ts'],
    transform: {
      '^.+\\.(t|j)s$': swc,
      // PGlite's CommonJS build loads Node built-ins with import(), which jest's module sandbox rejects
      // without --experimental-vm-modules: compiling those files too turns import() into require().
      '^.+/@electric-sql/pglite/dist/.+\\.cjs$': ['@swc/jest', { ...swc[1], isModule: true }],
    },
    transformIgnorePatterns: ['/node_modules/(?!\\.pnpm/@electric-sql\\+pglite|@electric-sql/pglite)'],
    moduleNameMapper: {
      '^@keyzone/(config|db|tokens|logging)$': path.join(__dirname, 'packages/$1/src/index.ts'),
      '^@keyzone/(config|db|tokens|logging)/(.*)$': path.join(__dirname, 'packages/$1/src/$2'),
    },
    // Generous on purpose: a PGlite start or a template clone took over 30 s on a loaded 2-core machine. A test
    // that hangs still fails, only later; nothing here measures time.
    testTimeout: 90000,
  };
};
