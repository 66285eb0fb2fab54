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

const QUIET_SLICE_MS = 100;

/**
 * Resolves once none of `pids` used half a clock tick of CPU in QUIET_SLICE_MS (or after
 * `maxMs`). A server keeps working after its load generator stops: the requests still in
 * flight, work it queued (a stock server's renders, a peer's compressions or hashes on libuv's
 * pool), the sockets closing, the garbage of the window collected. Waiting for that before the
 * next window keeps one variant's tail from running on the server CPU inside the next variant's
 * measurement (slowing it and thrashing its caches), and waiting for it before reading a
 * server's CPU time charges the tail to the requests that caused it.
 */
async function settleCpu(pids, maxMs = 10000) {
  const deadline = Date.now() + maxMs;
  while (Date.now() < deadline) {
    const before = pids.map(cpuSeconds);
    await new Promise((resolve) => setTimeout(resolve, QUIET_SLICE_MS));
    if (pids.every((pid, i) => before[i] === null || cpuSeconds(pid) - before[i] < 0.5 / TICKS_PER_SECOND)) return;
  }
}

module.exports = { cpuSeconds, cpuTimes, settleCpu };
