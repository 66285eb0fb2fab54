'use strict';
// How long a run takes: three modes with the same scenarios and different effort.
//   quick    a smoke run (minutes): every scenario runs, figures are indicative only
//   default  `npm run bench` with no flag: every scenario within ~10 minutes on 2 cores
//   full     `--full`, the publication run: each scenario's own rounds and durations
const MODES = ['quick', 'default', 'full'];

/** Rounds and seconds of an HTTP case in `mode` (scenario/case may set their full-run values). */
function httpTiming(mode, scenario, testCase = {}) {
  const fullRounds = testCase.rounds ?? scenario.rounds ?? 8;
  const fullSeconds = testCase.seconds ?? scenario.seconds ?? 3;
  if (mode === 'quick') return { rounds: 2, seconds: 1, warmupSeconds: 1 };
  // default: 2 interleaved rounds (the order still rotates; noise = half their spread), JIT-warm in
  // 0.5 s at thousands of req/s; within 10 minutes on 2 cores. --full is the publication run.
  if (mode === 'default') return { rounds: Math.min(fullRounds, 2), seconds: 1, warmupSeconds: 0.5 };
  return { rounds: fullRounds, seconds: fullSeconds, warmupSeconds: 2 };
}

/** pick(mode)(quickValue, defaultValue, fullValue): a custom scenario's effort per mode. */
function picker(mode) {
  return (quick, normal, full = normal) => (mode === 'quick' ? quick : mode === 'default' ? normal : full);
}

module.exports = { MODES, httpTiming, picker };
