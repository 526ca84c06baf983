// typescript-eslint flat config: recommended rules, type-aware where it matters for promises.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Modules through their faces (house style): code outside lib/<module>/ imports that module only through
// its index.ts, or through one of these sub-faces (each its own index.ts), which exist so a caller can
// take the pure half of a module without its runtime (undici, prom-client, Powertools, @aws-sdk).
const SUB_FACES = ['alarms/cloudwatch', 'bridge/contract', 'd2/data', 'd2/schema', 'requests/acl', 'requests/drills', 'requests/lambda', 'safety/lambda', 'xds/envoy-protos', 'xds/server', 'zk/config'];
const FACE_MESSAGE =
  "Import another module only through its face: lib/<module>/index.ts (e.g. '../zk', not '../zk/session'), " +
  `or a sub-face's index.ts (${SUB_FACES.map((f) => `lib/${f}`).join(', ')}). ` +
  'Export what you need from that index.ts; split the module if its face would drag in a heavy runtime.';
// `lib` is the relative prefix that reaches lib/ itself from the files at hand ('../../lib/', '../').
const intoModule = (lib) => {
  const prefix = lib.replaceAll('.', '\\.');
  return `^${prefix}(?!(?:${SUB_FACES.join('|')})(?:/index)?$|[^/]+/index$)[^./][^/]*/.+$`;
};
// flat config replaces (does not merge) a rule's options per file, so one block per directory depth.
const faceRules = [1, 2, 3, 4, 5, 6].flatMap((depth) => {
  const up = '../'.repeat(depth);
  const inLib = depth === 1 ? './' : '../'.repeat(depth - 1);
  const rule = (regexes) => ({
    '@typescript-eslint/no-restricted-imports': ['error', { patterns: regexes.map((regex) => ({ regex, message: FACE_MESSAGE })) }],
  });
  const below = (dir) => `${dir}/${'*/'.repeat(depth - 1)}*.ts`;
  return [
    { files: [below('lib')], rules: rule([intoModule(inLib), intoModule(`${up}lib/`)]) },
    { files: ['functions', 'bench', 'infra'].map(below), rules: rule([intoModule(`${up}lib/`)]) },
  ];
});

export default tseslint.config(
  // examples/ are consumer projects with their own package.json and tsconfig (`npm run typecheck` there).
  { ignores: ['node_modules/**', 'dist/**', 'cdk.out/**', 'bench/results/**', 'bench/.build/**', 'coverage/**', 'docs/**', 'examples/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // test/ stays white-box (it may import a module's inner files); examples/ is ignored above.
  ...faceRules,
  {
    files: ['**/*.cjs', '**/*.js', '**/*.mjs'],
    languageOptions: { globals: { require: 'readonly', module: 'writable', process: 'readonly', console: 'readonly', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
