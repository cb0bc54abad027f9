/**
 * CPU time of a process group from /proc (Linux): user + system time of every live process
 * whose process group is `pgid` (Firefox runs in its own group: parent, content processes).
 *
 * Why: on a shared machine, wall-clock build times swing with other work, while the CPU time
 * the browser spends is close to the work done. Each thread's /proc/<pid>/task/<tid>/schedstat
 * gives the scheduler's own count in nanoseconds; where it is missing, utime + stime of the
 * process count clock ticks (usually 10 ms) that the kernel charges to whichever task runs at
 * the tick, which on a busy machine is a sample, not a measure: callers then sum it over many
 * builds. Returns undefined where /proc is not there.
 */
import { readdirSync, readFileSync } from "node:fs";

/** Linux USER_HZ: the unit of utime/stime in /proc/<pid>/stat. */
const CLOCK_TICKS_PER_SECOND = 100;
const MS_PER_SECOND = 1000;
const NS_PER_MS = 1_000_000;

/** Fields after the `(comm)` part of /proc/<pid>/stat, zero-based: pgrp, utime, stime. */
const PGRP_FIELD = 2;
const UTIME_FIELD = 11;
const STIME_FIELD = 12;

export function groupCpuMs(pgid: number): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  let ticks = 0;
  let nanos = 0;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited between readdir and read
    }
    // comm may contain spaces and parentheses: the fields start after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[PGRP_FIELD]) !== pgid) continue;
    const ns = scheduledNs(entry);
    if (ns !== undefined) nanos += ns;
    else ticks += Number(fields[UTIME_FIELD]) + Number(fields[STIME_FIELD]);
  }
  return (ticks * MS_PER_SECOND) / CLOCK_TICKS_PER_SECOND + nanos / NS_PER_MS;
}

/** Nanoseconds on a CPU of every thread of process `pid` (schedstat), or undefined without it. */
function scheduledNs(pid: string): number | undefined {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  let ns = 0;
  for (const task of tasks) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // The thread ended between readdir and read.
    }
  }
  return Number.isFinite(ns) ? ns : undefined;
}
