// Figures of a process from /proc, shared by the benchmarks.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const ZERO = { rssMb: 0, cpuS: 0 };

/**
 * Resident memory (MB) and CPU seconds of a process; zeros once it is gone. CPU time counts its
 * reaped children too (cutime + cstime): a PostgreSQL backend that exits during a measurement (a
 * pool closing) moves its time to the postmaster instead of taking it out of a sum.
 */
export function procStat(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return {
      rssMb: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024,
      cpuS: (Number(stat[11]) + Number(stat[12]) + Number(stat[13]) + Number(stat[14])) / 100,
    };
  } catch {
    return ZERO;
  }
}

/** procStat summed over processes. */
export const sumStats = (pids) => pids.map(procStat).reduce((a, b) => ({ rssMb: a.rssMb + b.rssMb, cpuS: a.cpuS + b.cpuS }), ZERO);

/** procStat of every PostgreSQL process of the machine together (postmaster and backends). */
export const postgresStat = () => sumStats(execFileSync('pgrep', ['-x', 'postgres']).toString().trim().split('\n').map(Number));
