/** jest projects: unit (pure logic), integration (real ZooKeeper), later e2e and infra. */
// middy is ESM-only: let ts-jest (with allowJs) turn it into CommonJS like our own code.
const tsJest = ['ts-jest', { tsconfig: 'tsconfig.jest.json' }];
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.[tj]sx?$': tsJest },
  transformIgnorePatterns: ['/node_modules/(?!(@middy)/)'],
  moduleFileExtensions: ['ts', 'js', 'json'],
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/integration/global-setup.ts',
      globalTeardown: '<rootDir>/test/integration/global-teardown.ts',
      // Project-level testTimeout is ignored by jest 30 projects; set it in a setup file instead.
      setupFilesAfterEnv: ['<rootDir>/test/integration/setup-timeout.ts'],
    },
  ],
};
