/**
 * Issue 17: `npm run bench` draws its headline results as SVG charts (bench/charts). The data half is
 * tested in-process: what a results file must hold, which fresh results replace the committed copies,
 * and what the specs say. The drawing runs in a child process, as `npm run bench -- charts` does:
 * vega is ESM-only and jest's vm refuses dynamic `import()` (lib/local/sqs.ts explains).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  dateLabel,
  decidePropagation,
  decideXds,
  machineLabel,
  readPropagation,
  readXdsThroughput,
  ResultsFileError,
  type PropagationResults,
  type XdsResults,
} from '../../../bench/charts/data';
import { formatMiB, formatMs, PROPAGATION_SERIES, propagationSpec, xdsSpec } from '../../../bench/charts/specs';

const ROOT = join(__dirname, '..', '..', '..');
// A model name with markup characters: the SVG must carry it as text, escaped.
const MACHINE = { node: 'v20.20.2', cpus: 2, model: 'Xeon <E5> & Co' };

function overRounds(p50: number, p99: number) {
  return { allP50: p50, allP99: p99, allMax: p99, allMean: p50, perClientP50: p50 / 2, perClientP99: p99 / 2 };
}

function propagation(clients: number, at: string, e2eP99 = 437): PropagationResults & { rows: unknown[] } {
  return {
    name: 'propagation',
    at,
    machine: MACHINE,
    parameters: { clients, processes: 4, rounds: 20 },
    rows: [],
    summary: { endToEnd: overRounds(279, e2eP99), writeToRerouted: overRounds(270, 416), zkFanout: overRounds(221, 379), ratio: { p50: 1.22, p99: 1.1 } },
  };
}

function xdsRow(client: 'ours' | 'grpc-js-xds', N: number, ms: number, rss: number, doesNotExist = 0, runs = 5) {
  return { client, N, runs, 'all received ms (median)': ms, complete: 'yes', 'does-not-exist (max)': doesNotExist, 'peak RSS MiB (median)': rss };
}

function xds(at: string, rows = [xdsRow('ours', 1000, 144, 68.5), xdsRow('grpc-js-xds', 1000, 907, 140), xdsRow('ours', 10_000, 695, 121), xdsRow('grpc-js-xds', 10_000, 66_400, 1226, 19_998, 1)]): XdsResults {
  return { name: 'xds-throughput', at, machine: MACHINE, parameters: { repeats: 5, sizes: [1000, 10_000] }, rows };
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'failout-charts-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, value: unknown): string {
  const file = join(dir, name);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

describe('results files the charts read', () => {
  it('reads a propagation and an xds-throughput results file', () => {
    expect(readPropagation(write('p.json', propagation(1000, '2026-12-01T14:00:00Z'))).summary.zkFanout.allP99).toBe(379);
    expect(readXdsThroughput(write('x.json', xds('2026-12-01T14:00:00Z'))).rows).toHaveLength(4);
  });

  it('rejects a file without the fan-out floor, naming the file and the field', () => {
    const bad = propagation(1000, '2026-12-01T14:00:00Z') as unknown as { summary: Record<string, unknown> };
    delete bad.summary.zkFanout;
    const file = write('p.json', bad);
    expect(() => readPropagation(file)).toThrow(ResultsFileError);
    expect(() => readPropagation(file)).toThrow(new RegExp(`${file}.*summary\\.zkFanout`));
  });

  it('rejects an xds row of an unknown client, a bad date and text that is not JSON', () => {
    const unknownClient = xds('2026-12-01T14:00:00Z', [{ ...xdsRow('ours', 1000, 1, 1), client: 'envoy' as 'ours' }]);
    expect(() => readXdsThroughput(write('x.json', unknownClient))).toThrow(/rows\.0\.client/);
    expect(() => readPropagation(write('p.json', propagation(1000, 'yesterday')))).toThrow(/at: .*ISO date/);
    expect(() => readPropagation(write('p.json', '{"name":'))).toThrow(/not readable JSON/);
  });
});

describe('which fresh results replace the committed copies', () => {
  const copyIn = (name: string): string => join(dir, 'copies', name);

  it('takes a propagation run at a chart size and names its copy by the client count', () => {
    expect(decidePropagation(propagation(4000, '2026-12-01T14:00:00Z'), copyIn)).toEqual({ take: true, copyName: 'propagation-4000.json' });
  });

  it("leaves out a --quick run's 200 clients", () => {
    const decision = decidePropagation(propagation(200, '2026-12-01T14:00:00Z'), copyIn);
    expect(decision).toEqual({ take: false, reason: expect.stringContaining('200 clients') });
  });

  it('keeps a copy measured later than the fresh file', () => {
    write('copies/propagation-1000.json', propagation(1000, '2026-12-02T00:00:00Z'));
    expect(decidePropagation(propagation(1000, '2026-12-01T14:00:00Z'), copyIn).take).toBe(false);
    expect(decidePropagation(propagation(1000, '2026-12-03T00:00:00Z'), copyIn).take).toBe(true);
  });

  it('takes an xds-throughput run only with both clients at both sizes, all complete', () => {
    expect(decideXds(xds('2026-12-01T14:00:00Z'), copyIn)).toEqual({ take: true, copyName: 'xds-throughput.json' });
    const withoutPeer10k = xds('2026-12-01T14:00:00Z').rows.filter((r) => !(r.client === 'grpc-js-xds' && r.N === 10_000));
    expect(decideXds(xds('2026-12-01T14:00:00Z', withoutPeer10k), copyIn)).toEqual({ take: false, reason: expect.stringContaining('--peer-10k') });
    const incomplete = xds('2026-12-01T14:00:00Z').rows.map((r) => (r.client === 'ours' && r.N === 10_000 ? { ...r, complete: 'no (1)' } : r));
    expect(decideXds(xds('2026-12-01T14:00:00Z', incomplete), copyIn)).toEqual({ take: false, reason: expect.stringContaining('did not complete') });
  });
});

describe('chart specs', () => {
  it('says where and when: the machine, and one day or the range of days', () => {
    expect(machineLabel([MACHINE, MACHINE])).toBe('2 × Xeon <E5> & Co, Node v20.20.2');
    expect(dateLabel(['2026-12-01T14:00:00Z', '2026-12-01T23:00:00Z'])).toBe('2026-12-01');
    expect(dateLabel(['2026-12-03T01:00:00Z', '2026-12-01T14:00:00Z'])).toBe('2026-12-01 to 2026-12-03');
  });

  it('formats bar labels', () => {
    expect([formatMs(144.4), formatMs(9999), formatMs(66_412)]).toEqual(['144 ms', '9,999 ms', '66.4 s']);
    expect([formatMiB(68.46), formatMiB(1226.3)]).toEqual(['68.5 MiB', '1,226 MiB']);
  });

  it('puts each client count in order, the floor next to both failout measurements, p50 and p99', () => {
    const spec = propagationSpec([propagation(10_000, '2026-12-01T15:00:00Z'), propagation(1000, '2026-12-01T14:00:00Z')]);
    const values = (spec.data as { values: { clients: string; stat: string; series: string; ms: number }[] }).values;
    expect([...new Set(values.map((v) => v.clients))]).toEqual(['1,000', '10,000']);
    expect(values.filter((v) => v.clients === '1,000' && v.stat === 'p99 over rounds').map((v) => [v.series, v.ms])).toEqual([
      [PROPAGATION_SERIES.floor, 379],
      [PROPAGATION_SERIES.write, 416],
      [PROPAGATION_SERIES.endToEnd, 437],
    ]);
    const subtitle = (spec.title as { subtitle: string[] }).subtitle.join('\n');
    expect(subtitle).toContain('1.10 at 1,000 · 1.10 at 10,000');
    expect(subtitle).toContain('2 × Xeon <E5> & Co, Node v20.20.2; 2026-12-01 (UTC)');
  });

  it("notes the peer's single run and its does-not-exist storm", () => {
    const subtitle = (xdsSpec(xds('2026-12-01T14:00:00Z')).title as { subtitle: string[] }).subtitle.join('\n');
    expect(subtitle).toContain('@grpc/grpc-js-xds at 10,000 fired does-not-exist 19,998 times.');
    expect(subtitle).toContain('@grpc/grpc-js-xds at 10,000: one run.');
  });
});

/** Whether `xml` is well formed: one root, tags nested and closed, attributes quoted, no raw `<` or stray `&` in text. */
function wellFormed(xml: string): boolean {
  const stack: string[] = [];
  let roots = 0;
  const token = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|([^<]+)|(<)/g;
  for (const m of xml.trim().matchAll(token)) {
    const [, closing, name, , selfClosing, text, stray] = m;
    if (stray) return false;
    if (text !== undefined) {
      if (/&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(text)) return false;
      if (stack.length === 0 && text.trim() !== '') return false;
      continue;
    }
    if (closing) {
      if (stack.pop() !== name) return false;
      continue;
    }
    if (stack.length === 0) roots++;
    if (!selfClosing) stack.push(name!);
  }
  return stack.length === 0 && roots === 1;
}

function runCharts(args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(ROOT, 'bench', 'run.ts'), 'charts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

describe('npm run bench -- charts', () => {
  jest.setTimeout(60_000);

  it('checks well-formedness for real (the check below would pass anything otherwise)', () => {
    expect(wellFormed('<svg a="1"><g><text>x &amp; y</text></g><rect/></svg>')).toBe(true);
    for (const broken of ['<svg><g></svg>', '<svg>a & b</svg>', '<svg a=1></svg>', '<svg></svg><svg></svg>', '<svg><text>a < b</text></svg>']) {
      expect([broken, wellFormed(broken)]).toEqual([broken, false]);
    }
  });

  it('turns results into SVG charts that carry the labels, the machine and the date', async () => {
    const results = join(dir, 'results');
    const out = join(dir, 'out');
    write('results/propagation.json', propagation(1000, '2026-12-01T14:00:00Z'));
    write('results/xds-throughput.json', xds('2026-12-01T14:30:00Z'));
    // A copy at another size from an earlier run: drawn beside the fresh one.
    write('out/propagation-4000.json', propagation(4000, '2026-11-30T09:00:00Z', 612));

    const { code, output } = await runCharts(['--results', results, '--out', out]);
    expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining('propagation.svg: drawn from propagation-1000.json, propagation-4000.json') });
    expect(JSON.parse(readFileSync(join(out, 'propagation-1000.json'), 'utf8'))).toEqual(propagation(1000, '2026-12-01T14:00:00Z'));

    const p = readFileSync(join(out, 'propagation.svg'), 'utf8');
    const x = readFileSync(join(out, 'xds-throughput.svg'), 'utf8');
    for (const svg of [p, x]) {
      expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
      expect(wellFormed(svg)).toBe(true);
      expect(svg).toContain('2 × Xeon &lt;E5&gt; &amp; Co, Node v20.20.2');
      expect(svg).not.toContain('<E5>');
    }
    expect(p).toContain('Failout propagation against the ZooKeeper fan-out floor');
    expect(p).toContain('2026-11-30 to 2026-12-01 (UTC)');
    for (const label of ['1,000', '4,000', 'p50 over rounds', 'p99 over rounds', '437', '612', '379']) expect(p).toContain(`>${label}<`);
    for (const series of Object.values(PROPAGATION_SERIES)) expect(p).toContain(series.replace(/&/g, '&amp;'));
    expect(x).toContain('xDS client: failout/xds against @grpc/grpc-js-xds');
    expect(x).toContain('2026-12-01 (UTC)');
    for (const label of ['144 ms', '907 ms', '695 ms', '66.4 s', '68.5 MiB', '1,226 MiB', 'ours (failout/xds)', '@grpc/grpc-js-xds', '10,000 resources']) expect(x).toContain(`>${label}<`);
  });

  it('fails on a results file it cannot draw, naming it, and writes no chart', async () => {
    const bad = propagation(1000, '2026-12-01T14:00:00Z') as unknown as { summary: Record<string, unknown> };
    delete bad.summary.endToEnd;
    const file = write('results/propagation.json', bad);
    const { code, output } = await runCharts(['--results', join(dir, 'results'), '--out', join(dir, 'out')]);
    expect(code).toBe(1);
    expect(output).toContain(`${file}: not a results file the charts can draw: summary.endToEnd`);
    expect(existsSync(join(dir, 'out', 'propagation.svg'))).toBe(false);
  });

  it('rejects an unknown option', async () => {
    const { code, output } = await runCharts(['--out-dir', dir]);
    expect(code).toBe(1);
    expect(output).toContain("Unknown option '--out-dir'");
  });
});
