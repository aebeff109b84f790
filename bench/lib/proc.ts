import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Memory and CPU of a process, read from /proc (Linux). Every reader answers null/NaN elsewhere or once the
 * process is gone, so a benchmark never fails because of a missing figure.
 */

export interface ProcMemory {
  /** Current resident set size (VmRSS), bytes. */
  rss: number;
  /** Peak resident set size since the process started (VmHWM, the "high water mark"), bytes. */
  peakRss: number;
}

export function readProcMemory(pid: number): ProcMemory | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const kb = (key: string): number => {
    const m = new RegExp(`^${key}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
    return m ? Number(m[1]) * 1024 : NaN;
  };
  return { rss: kb('VmRSS'), peakRss: kb('VmHWM') };
}

/** Samples a process's RSS at an interval, to see the shape over a run (VmHWM only gives the peak). */
export class MemorySampler {
  private timer: NodeJS.Timeout | undefined;
  private maxRss = NaN;
  private samples = 0;

  constructor(
    private readonly pid: number,
    private readonly intervalMs = 250,
  ) {}

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
    return this;
  }

  /** Stops sampling; answers the largest sampled RSS and the kernel's peak (VmHWM) at this moment. */
  stop(): { maxSampledRss: number; peakRss: number; rss: number; samples: number } {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const now = readProcMemory(this.pid);
    return { maxSampledRss: this.maxRss, peakRss: now?.peakRss ?? NaN, rss: now?.rss ?? NaN, samples: this.samples };
  }

  private sample(): void {
    const m = readProcMemory(this.pid);
    if (!m) return;
    this.samples++;
    if (!(this.maxRss >= m.rss)) this.maxRss = m.rss;
  }
}

let clockTicks: number | undefined;

/** Clock ticks per second of /proc/<pid>/stat times (getconf CLK_TCK; 100 on practically every Linux). */
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** User + system CPU seconds a process has used so far; NaN when unknown. */
export function readProcCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) is in parentheses and may hold spaces: split what follows the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // rest[0] is field 3 (state); utime and stime are fields 14 and 15.
    return (Number(rest[11]) + Number(rest[12])) / ticksPerSecond();
  } catch {
    return NaN;
  }
}

/**
 * CPU used over an interval by one child process and by this process (the load generator), in percent of one
 * core. On a small machine it tells who was the bottleneck: a server near 100 % is saturated; a load
 * generator near 100 % means the figures are bounded by the generator, not by the server.
 */
export class CpuMeter {
  private readonly childStart: number;
  private readonly selfStart = process.cpuUsage();
  private readonly wallStart = process.hrtime.bigint();

  constructor(private readonly childPid: number) {
    this.childStart = readProcCpuSeconds(childPid);
  }

  stop(): { childPct: number; selfPct: number } {
    const wallS = Number(process.hrtime.bigint() - this.wallStart) / 1e9;
    const self = process.cpuUsage(this.selfStart);
    const childS = readProcCpuSeconds(this.childPid) - this.childStart;
    return { childPct: (childS / wallS) * 100, selfPct: ((self.user + self.system) / 1e6 / wallS) * 100 };
  }
}

/** The local MariaDB/MySQL server process, to tell its CPU use (null when not on this machine). */
export function databaseServerPid(): number | null {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (comm === 'mariadbd' || comm === 'mysqld') return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return null;
}
