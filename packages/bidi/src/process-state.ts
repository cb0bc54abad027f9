/**
 * Whether processes are still running, as opposed to merely present: a zombie has exited and
 * only waits for its parent to reap it, yet `kill(pid, 0)` still succeeds on it. Containers
 * whose init reaps late (this machine's reaps about once a second) keep a killed Firefox's
 * children as zombies for that long; waiting on them cost 1.2-1.8 s at every close.
 * Linux reads /proc; elsewhere presence is all that can be told, and counts as running.
 */
import { readdirSync, readFileSync } from "node:fs";

interface ProcStat {
  state: string;
  processGroup: number;
}

/** /proc/PID/stat's state and process group (the fields after the command's closing paren). */
function procStat(pid: number | string): ProcStat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0] ?? "", processGroup: Number(fields[2]) };
}

const exitedState = (state: string) => state === "Z" || state === "X";

/** Whether `pid` is a running process (not a zombie). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  const stat = procStat(pid);
  return stat === undefined || !exitedState(stat.state);
}

/** Whether any process of the process group `groupId` still runs (zombies do not count). */
export function processGroupRuns(groupId: number): boolean {
  try {
    process.kill(-groupId, 0);
  } catch {
    return false;
  }
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true; // no /proc: present is all we know
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(entry);
    if (stat?.processGroup === groupId && !exitedState(stat.state)) return true;
  }
  return false;
}
