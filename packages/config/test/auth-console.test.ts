// AUTH_CONSOLE_ENABLED and AUTH_CONSOLE_REQUIRE_AAL2 (issue 43): both on by default, GOTRUE_ accepted as elsewhere,
// and a value that is not a boolean stops start-up naming the variable.
import { ConfigError, loadAuthConfig } from '../src';
import { MINIMAL_ENV, cleanupTempDirs, tempDir } from './helpers';

afterEach(cleanupTempDirs);

const load = (env: Record<string, string>) => loadAuthConfig({ env: { ...MINIMAL_ENV, ...env }, cwd: tempDir() });

it('the admin console is on and needs AAL2 by default', () => {
  expect(load({}).console).toEqual({ enabled: true, requireAal2: true });
});

it('both switches turn off, with either prefix', () => {
  expect(load({ AUTH_CONSOLE_ENABLED: 'false', GOTRUE_CONSOLE_REQUIRE_AAL2: 'false' }).console).toEqual({ enabled: false, requireAal2: false });
});

it('a value that is not a boolean is refused by name', () => {
  expect(() => load({ AUTH_CONSOLE_REQUIRE_AAL2: 'sometimes' })).toThrow(ConfigError);
  expect(() => load({ AUTH_CONSOLE_REQUIRE_AAL2: 'sometimes' })).toThrow(/CONSOLE_REQUIRE_AAL2/);
});
