import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatTable } from './format';

/**
 * Summary of a V8 .cpuprofile (as written by `node --cpu-prof`): where the CPU time went, by package (self
 * time) and by function (self and inclusive time), to see e.g. which middleware costs most.
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const IDLE = new Set(['(idle)', '(program)']);

/** node_modules/<pkg> or node_modules/@scope/<pkg>, the service's own code (dist/ or src/), node internals. */
export function packageOf(frame: CallFrame): string {
  const url = frame.url;
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + '/node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (url.startsWith('node:')) return 'node (core)';
  const dist = url.search(/\/(dist|src)\//);
  if (dist >= 0) return `lcds ${url.slice(dist + 1).split('/').slice(0, -1).join('/') || url.slice(dist + 1)}`;
  return url;
}

function shortUrl(url: string): string {
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) return url.slice(nm + '/node_modules/'.length);
  const dist = url.search(/\/(dist|src)\//);
  return dist >= 0 ? url.slice(dist + 1) : url;
}

function functionKey(frame: CallFrame): string {
  const name = frame.functionName || '(anonymous)';
  return frame.url ? `${name} ${shortUrl(frame.url)}:${frame.lineNumber + 1}` : name;
}

export interface ProfileSummary {
  totalMs: number;
  busyMs: number;
  byPackageSelf: Array<[string, number]>;
  byFunctionSelf: Array<[string, number]>;
  byFunctionInclusive: Array<[string, number]>;
  byPackageInclusive: Array<[string, number]>;
}

export function summarizeProfile(profile: CpuProfile): ProfileSummary {
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const pkgSelf = new Map<string, number>();
  const fnSelf = new Map<string, number>();
  const fnIncl = new Map<string, number>();
  const pkgIncl = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);
  let total = 0;
  let busy = 0;
  // Time of sample i is timeDeltas[i + 1] (the delta before the next sample); close enough, and standard.
  for (let i = 0; i < profile.samples.length; i++) {
    const us = profile.timeDeltas[i + 1] ?? 0;
    const leaf = byId.get(profile.samples[i]);
    if (!leaf) continue;
    total += us;
    if (IDLE.has(leaf.callFrame.functionName)) continue;
    busy += us;
    add(pkgSelf, packageOf(leaf.callFrame), us);
    add(fnSelf, functionKey(leaf.callFrame), us);
    const seenFn = new Set<string>();
    const seenPkg = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame;
      if (frame.functionName === '(root)') continue;
      const fk = functionKey(frame);
      if (!seenFn.has(fk)) {
        seenFn.add(fk);
        add(fnIncl, fk, us);
      }
      const pk = packageOf(frame);
      if (!seenPkg.has(pk)) {
        seenPkg.add(pk);
        add(pkgIncl, pk, us);
      }
    }
  }
  const sorted = (map: Map<string, number>) => [...map.entries()].map(([k, us]): [string, number] => [k, us / 1000]).sort((a, b) => b[1] - a[1]);
  return {
    totalMs: total / 1000,
    busyMs: busy / 1000,
    byPackageSelf: sorted(pkgSelf),
    byFunctionSelf: sorted(fnSelf),
    byFunctionInclusive: sorted(fnIncl),
    byPackageInclusive: sorted(pkgIncl),
  };
}

/**
 * Who calls a function: self time of every frame named `functionName`, grouped by its `depth` nearest callers
 * (e.g. to find which package triggers a costly Node internal).
 */
export function callersOf(profile: CpuProfile, functionName: string, depth = 5): Array<[string, number]> {
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0)));
  const chains = new Map<string, number>();
  for (const node of profile.nodes) {
    if (node.callFrame.functionName !== functionName) continue;
    const chain: string[] = [];
    for (let id = parent.get(node.id), k = 0; id !== undefined && k < depth; id = parent.get(id), k++) chain.push(functionKey(byId.get(id)!.callFrame));
    const key = chain.join(' < ');
    chains.set(key, (chains.get(key) ?? 0) + (self.get(node.id) ?? 0));
  }
  return [...chains.entries()].map(([k, us]): [string, number] => [k, us / 1000]).sort((a, b) => b[1] - a[1]);
}

/** Reads the newest .cpuprofile of a directory; null when there is none. */
export function readNewestProfile(dir: string): { file: string; profile: CpuProfile } | null {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort();
  if (files.length === 0) return null;
  const file = join(dir, files[files.length - 1]);
  return { file, profile: JSON.parse(readFileSync(file, 'utf8')) as CpuProfile };
}

export function formatProfileSummary(summary: ProfileSummary, top = 20): string {
  const pct = (ms: number) => `${((ms / summary.busyMs) * 100).toFixed(1)} %`;
  const rows = (entries: Array<[string, number]>) => entries.slice(0, top).map(([k, ms]) => [k, `${ms.toFixed(0)} ms`, pct(ms)]);
  return [
    `busy ${summary.busyMs.toFixed(0)} ms of ${summary.totalMs.toFixed(0)} ms profiled (percentages are of busy time)`,
    '',
    'self time by package',
    formatTable(['package', 'self', '%'], rows(summary.byPackageSelf)),
    '',
    'inclusive time by package (time with a frame of the package on the stack)',
    formatTable(['package', 'incl', '%'], rows(summary.byPackageInclusive)),
    '',
    'self time by function',
    formatTable(['function', 'self', '%'], rows(summary.byFunctionSelf)),
    '',
    'inclusive time by function',
    formatTable(['function', 'incl', '%'], rows(summary.byFunctionInclusive.slice(0, top * 2)).slice(0, top * 2)),
  ].join('\n');
}

/**
 * node -r @swc-node/register bench/lib/cpu-profile.ts <file.cpuprofile|dir> [top]   summary of a profile
 * node -r @swc-node/register bench/lib/cpu-profile.ts <file.cpuprofile|dir> --callers <function> [depth]
 */
if (require.main === module) {
  const [target, arg2, arg3, arg4] = process.argv.slice(2);
  if (!target) {
    process.stderr.write('usage: bench/lib/cpu-profile.ts <file.cpuprofile|dir> [top] | --callers <functionName> [depth]\n');
    process.exit(2);
  }
  const profile = target.endsWith('.cpuprofile') ? (JSON.parse(readFileSync(target, 'utf8')) as CpuProfile) : readNewestProfile(target)?.profile;
  if (!profile) throw new Error(`no .cpuprofile in ${target}`);
  if (arg2 === '--callers') {
    const rows = callersOf(profile, arg3, Number(arg4 ?? 5)).map(([chain, ms]) => [`${ms.toFixed(0)} ms`, chain]);
    process.stdout.write(formatTable(['self', `callers of ${arg3} (nearest first)`], rows, (c) => c === 0) + '\n');
  } else {
    process.stdout.write(formatProfileSummary(summarizeProfile(profile), Number(arg2 ?? 20)) + '\n');
  }
}
