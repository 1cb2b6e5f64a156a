// Runs the benchmark suites in bench/suites: `npm run bench [-- --quick] [-- --only <suite>]`.
// Each suite's figures go to bench/results/<suite>.json; its top-level scalar figures are merged
// into bench/results/summary.json, keeping every other suite's figures there. Each suite's result
// also records how fast the machine's CPUs were just before it ran (bench/machine-gauge.ts).
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gaugeMachine } from './machine-gauge';

export interface SuiteOptions {
  quick: boolean;
}

interface Suite {
  name: string;
  run(opts: SuiteOptions): Promise<Record<string, unknown>>;
}

const SUITES_DIR = path.join(__dirname, 'suites');
const RESULTS_DIR = path.join(__dirname, 'results');
const SUMMARY_FILE = path.join(RESULTS_DIR, 'summary.json');

function parseArgs(argv: string[]): { quick: boolean; only?: string } {
  const quick = argv.includes('--quick');
  const at = argv.indexOf('--only');
  const only = at >= 0 ? argv[at + 1] : undefined;
  if (at >= 0 && (only === undefined || only.startsWith('--'))) throw new Error('--only needs a suite name');
  return { quick, only };
}

async function loadSuites(): Promise<Suite[]> {
  const files = readdirSync(SUITES_DIR).filter((f) => f.endsWith('.ts')).sort();
  const suites: Suite[] = [];
  for (const file of files) {
    const mod = (await import(path.join(SUITES_DIR, file))) as Partial<Suite>;
    if (typeof mod.name !== 'string' || typeof mod.run !== 'function') throw new Error(`bench/suites/${file} must export name and run`);
    suites.push({ name: mod.name, run: mod.run });
  }
  return suites;
}

function scalarFigures(figures: Record<string, unknown>): Record<string, number | string | boolean> {
  const out: Record<string, number | string | boolean> = {};
  for (const [key, value] of Object.entries(figures)) {
    if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') out[key] = value;
  }
  return out;
}

function readSummary(): Record<string, unknown> {
  if (!existsSync(SUMMARY_FILE)) return {};
  try {
    return JSON.parse(readFileSync(SUMMARY_FILE, 'utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function format(value: unknown): string {
  if (typeof value === 'number') return Number.isInteger(value) ? value.toLocaleString('en-US') : value.toFixed(value < 10 ? 3 : 1);
  return String(value);
}

function printTable(suite: string, figures: Record<string, number | string | boolean>): void {
  const rows = Object.entries(figures);
  const width = Math.max(...rows.map(([k]) => k.length), 6);
  console.log(`\n${suite}`);
  console.log(`${'figure'.padEnd(width)}  value`);
  console.log(`${'-'.repeat(width)}  ${'-'.repeat(16)}`);
  for (const [key, value] of rows) console.log(`${key.padEnd(width)}  ${format(value)}`);
}

async function main(): Promise<void> {
  const { quick, only } = parseArgs(process.argv.slice(2));
  const suites = (await loadSuites()).filter((s) => only === undefined || s.name === only);
  if (suites.length === 0) throw new Error(`no suite named ${only}`);
  mkdirSync(RESULTS_DIR, { recursive: true });
  for (const suite of suites) {
    const machine = gaugeMachine();
    const startedAt = new Date().toISOString();
    const began = Date.now();
    console.log(`running ${suite.name}${quick ? ' (quick)' : ''}... (machine: store loop ${machine.storeLoopOpsPerSecByCpu.map((ops) => `${(ops / 1e6).toFixed(1)} M/s`).join(', ')}${machine.pinned ? ' per CPU' : ', unpinned'})`);
    const figures = await suite.run({ quick });
    const durationMs = Date.now() - began;
    writeFileSync(path.join(RESULTS_DIR, `${suite.name}.json`), `${JSON.stringify({ suite: suite.name, quick, startedAt, durationMs, node: process.version, machine, figures }, null, 2)}\n`);
    // Read-modify-write right before writing, so figures other suites wrote meanwhile survive.
    const scalars = scalarFigures(figures);
    const summary = readSummary();
    const runs = (summary.runs ?? {}) as Record<string, unknown>;
    runs[suite.name] = { startedAt, quick, durationMs, machineStoreLoopOpsPerSecByCpu: machine.storeLoopOpsPerSecByCpu };
    writeFileSync(SUMMARY_FILE, `${JSON.stringify({ ...summary, ...scalars, runs }, null, 2)}\n`);
    printTable(suite.name, scalars);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
