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
      // PGlite's CommonJS build loads Node built-ins with import(), which jest's module sandbox rejects
      // without --experimental-vm-modules: compiling those files too turns import() into require().
      '^.+/@electric-sql/pglite/dist/.+\\.cjs$': ['@swc/jest', { ...swc[1], isModule: true }],
      // The OTLP exporters load http/https with import() too (@keyzone/telemetry's tests export over OTLP).
      '^.+/@opentelemetry/otlp-exporter-base/build/src/.+\\.js$': ['@swc/jest', { ...swc[1], isModule: true }],
      '^.+\\.(t|j)s$': swc,
    },
    transformIgnorePatterns: [
      '/node_modules/(?!\\.pnpm/@electric-sql\\+pglite|@electric-sql/pglite|\\.pnpm/@opentelemetry\\+otlp-exporter-base|@opentelemetry/otlp-exporter-base)',
    ],
    moduleNameMapper: {
      '^@keyzone/(config|db|tokens|logging|telemetry)$': path.join(__dirname, 'packages/$1/src/index.ts'),
      '^@keyzone/(config|db|tokens|logging|telemetry)/(.*)$': path.join(__dirname, 'packages/$1/src/$2'),
    },
    // Generous on purpose: a PGlite start or a template clone took over 30 s on a loaded 2-core machine. A test
    // that hangs still fails, only later; nothing here measures time.
    testTimeout: 90000,
  };
};
