import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACL_IDS, BOOTSTRAP, IDENTITY_CONTEXT } from './helpers';

const ROOT = join(__dirname, '..', '..');

/**
 * `npx cdk synth -q` as a user runs it (cdk.json's app, cdk-nag on, real esbuild bundling, the bridge
 * image staged but not built), offline: no Docker, no AWS credentials, no network. The context is the
 * minimum the app requires (docs/deployers.md "Deploy with CDK"); a sandbox VPC keeps the stack environment-agnostic.
 */
describe('cdk synth', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'failout-synth-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('synthesizes offline without Docker or credentials, with no cdk-nag finding', () => {
    const bootstrapFile = join(dir, 'bootstrap.json');
    writeFileSync(bootstrapFile, JSON.stringify(BOOTSTRAP));
    const out = join(dir, 'cdk.out');
    const context = {
      zkConnect: 'zk1.internal:2181,zk2.internal:2181',
      zkCidr: '10.0.0.0/24',
      ...IDENTITY_CONTEXT,
      bridgeBootstrapFile: bootstrapFile,
      bridgeServices: 'greetings,billing',
      controlPlanes: '10.1.0.0/16:18000,10.2.0.0/16:18000',
      // The observers too: their image is staged from functions/d2-observer/Dockerfile the same way.
      observers: 'true',
    };
    const env: NodeJS.ProcessEnv = { ...process.env, AWS_EC2_METADATA_DISABLED: 'true', CDK_DISABLE_VERSION_CHECK: '1', DOCKER_HOST: 'unix:///nonexistent/docker.sock', PATH: process.env.PATH };
    for (const k of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE', 'AWS_REGION', 'AWS_DEFAULT_REGION']) delete env[k];

    const started = Date.now();
    const result = spawnSync('npx', ['cdk', 'synth', '-q', '--no-notices', '-o', out, ...Object.entries(context).flatMap(([k, v]) => ['-c', `${k}=${v}`])], { cwd: ROOT, env, encoding: 'utf8', timeout: 110_000 });
    const output = `${result.stdout}\n${result.stderr}`;

    expect({ status: result.status, output: result.status === 0 ? '' : output }).toEqual({ status: 0, output: '' });
    expect(output).not.toMatch(/finished with errors|AwsSolutions-/);
    expect(Date.now() - started).toBeLessThan(60_000);
    const template = JSON.parse(readFileSync(join(out, 'Failout.template.json'), 'utf8')) as { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>; Outputs: Record<string, unknown> };
    const types = Object.values(template.Resources).map((r) => r.Type);
    // `-c key=value` splits at the first '=' only: a digest id's trailing '=' (and its '+', '/') arrive whole.
    const fn = Object.values(template.Resources).find((r) => r.Type === 'AWS::Lambda::Function');
    expect((fn?.Properties?.Environment as { Variables: Record<string, string> }).Variables).toMatchObject({ ZK_ACL_WRITER_ID: ACL_IDS.requestWriter, ZK_ACL_BRIDGE_ID: ACL_IDS.bridge });
    expect(types).toEqual(expect.arrayContaining(['AWS::SQS::Queue', 'AWS::Lambda::Function', 'AWS::ECS::Service', 'AWS::IAM::ManagedPolicy', 'AWS::CloudWatch::Alarm']));
    expect(Object.keys(template.Outputs)).toEqual(expect.arrayContaining(['QueueUrl', 'DeadLetterQueueUrl', 'OperatorPolicyArn', 'ObserverServerUri']));
    expect(types).toContain('AWS::ElasticLoadBalancingV2::LoadBalancer');
    // The bridge's Docker context is staged with the Dockerfile's allow-list, not the whole repository.
    const staged = readdirSync(out).filter((d) => d.startsWith('asset.')).map((d) => readdirSync(join(out, d)).sort());
    expect(staged).toContainEqual(['functions', 'lib', 'package-lock.json', 'package.json', 'tsconfig.json']);
    const functionDirs = readdirSync(out)
      .filter((d) => d.startsWith('asset.') && readdirSync(join(out, d)).includes('functions'))
      .map((d) => readdirSync(join(out, d, 'functions')))
      .sort();
    expect(functionDirs).toEqual([['d2-observer'], ['xds-bridge']]);
    expect(staged).toContainEqual(['index.js', 'index.js.map']);
  }, 120_000);
});
