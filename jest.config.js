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
  // Two workers on CI's two cores: most suites wait on ZooKeeper, gRPC and timers, so two run in about
  // half the time of one (jest's default here is cores − 1 = one, in band).
  maxWorkers: 2,
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
    // The whole local stack (lib/local) and the scripted scenario; each test sets its own timeout.
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.test.ts'] },
    // The CDK app: template assertions, cdk-nag, and an offline `cdk synth` (no Docker, no credentials).
    { ...common, displayName: 'infra', testMatch: ['<rootDir>/test/infra/**/*.test.ts'] },
  ],
};
