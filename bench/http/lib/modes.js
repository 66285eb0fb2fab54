'use strict';
// How long a run takes: four modes with the same scenarios and different effort.
//   smoke    CI's run (--smoke): every selected scenario runs to the end, one round each;
//            the figures mean nothing and are written outside bench/results
//   quick    a short run (minutes): every scenario runs, figures are indicative only
//   default  `npm run bench` with no flag: every scenario within ~10 minutes on 2 cores
//   full     `--full`, the publication run: each scenario's own rounds and durations
const MODES = ['smoke', 'quick', 'default', 'full'];

/** Rounds and seconds of an HTTP case in `mode` (scenario/case may set their full-run values). */
function httpTiming(mode, scenario, testCase = {}) {
  const fullRounds = testCase.rounds ?? scenario.rounds ?? 8;
  const fullSeconds = testCase.seconds ?? scenario.seconds ?? 3;
  // smoke: that each variant serves under load, not how fast; half a second is thousands of requests
  if (mode === 'smoke') return { rounds: 1, seconds: 0.5, warmupSeconds: 0.25 };
  if (mode === 'quick') return { rounds: 2, seconds: 1, warmupSeconds: 1 };
  // default: 2 interleaved rounds (the order still rotates; noise = half their spread), JIT-warm in
  // 0.5 s at thousands of req/s; within 10 minutes on 2 cores. --full is the publication run.
  if (mode === 'default') return { rounds: Math.min(fullRounds, 2), seconds: 1, warmupSeconds: 0.5 };
  return { rounds: fullRounds, seconds: fullSeconds, warmupSeconds: 2 };
}

/**
 * pick(mode)(quickValue, defaultValue, fullValue): a custom scenario's effort per mode (smoke
 * takes the quick value); pick.rounds(...) the same for a number of rounds, which smoke makes 1.
 */
function picker(mode) {
  const pick = (quick, normal, full = normal) =>
    mode === 'quick' || mode === 'smoke' ? quick : mode === 'default' ? normal : full;
  pick.rounds = (quick, normal, full = normal) => (mode === 'smoke' ? 1 : pick(quick, normal, full));
  return pick;
}

module.exports = { MODES, httpTiming, picker };
