'use strict';
// CPU time a process (all its threads) has used, from /proc: a per-request cost that other
// processes on a shared machine cannot inflate the way they inflate wall-clock requests/s.
const fs = require('fs');

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** { user, system }: seconds of CPU used so far by `pid`, or null where /proc is unavailable. */
function cpuTimes(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) / TICKS_PER_SECOND, system: Number(fields[12]) / TICKS_PER_SECOND };
  } catch {
    return null;
  }
}

/** Seconds of user + system CPU used so far by `pid`, or null where /proc is unavailable. */
function cpuSeconds(pid) {
  const times = cpuTimes(pid);
  return times && times.user + times.system;
}

/**
 * Waits until every process in `pids` has used under 5 ms of CPU in 100 ms (at most
 * `timeoutMs`): work a variant still has queued from its last load (a stock server's renders,
 * a peer's compressions on libuv's pool) must not run on the server CPU inside the next
 * variant's measurement, where it would slow that variant and thrash its caches.
 */
async function settleCpu(pids, timeoutMs = 10000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const before = pids.map(cpuSeconds);
    await new Promise((r) => setTimeout(r, 100));
    if (pids.every((pid, i) => before[i] === null || cpuSeconds(pid) - before[i] < 0.005)) return;
  }
}

module.exports = { cpuSeconds, cpuTimes, settleCpu };
