// Shared jest settings: SWC compiles TypeScript; workspace packages resolve to their sources so
// tests never run against a stale dist/.
const path = require('node:path');

module.exports = function preset(dir) {
  return {
    rootDir: dir,
    testEnvironment: 'node',
    testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/src/**/*.test.ts'],
    transform: { '^.+\\.(t|j)s$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
    moduleNameMapper: {
      '^@keyzone/(config|db|tokens|logging)$': path.join(__dirname, 'packages/$1/src/index.ts'),
      '^@keyzone/(config|db|tokens|logging)/(.*)$': path.join(__dirname, 'packages/$1/src/$2'),
    },
    testTimeout: 30000,
  };
};
