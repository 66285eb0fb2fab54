'use strict';
// The runner's "~mm:ss left": an estimate per scenario, from what it took in the same mode and
// selection last time (the results folder's latest.json), else from the timing its cases imply,
// else the scenario's own `estimate` ({ quick, default, full } seconds), else a flat guess.
const { httpTiming } = require('./modes');

const FLAT_GUESS_SECONDS = 30;
const START_SECONDS = 1; // starting one server, on a loaded 2-core machine

function formatClock(seconds) {
  const s = Math.max(0, Math.round(seconds));
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

function selectionOf(options) {
  return options.headlineOnly ? 'headline' : options.names && options.names.length ? 'named' : 'all';
}

// The cases a declarative scenario will run, without calling a `cases` getter (the Angular
// scenario's builds its fixture on first access).
function plainCases(scenario, options) {
  const own = Object.getOwnPropertyDescriptor(scenario, 'cases');
  if (own && typeof own.get === 'function') return null;
  const cases = scenario.cases || (scenario.variants ? [{ name: scenario.name, variants: scenario.variants }] : null);
  if (!cases) return null;
  return cases
    .filter((c) => !c.fullOnly || options.mode === 'full')
    .filter((c) => !options.headlineOnly || c.name === scenario.headline);
}

function estimateSeconds(scenario, options, previous) {
  const before =
    previous &&
    previous.mode === options.mode &&
    (previous.selection || 'all') === (selectionOf(options) === 'named' ? 'all' : selectionOf(options)) &&
    (previous.scenarios || []).find((s) => s.name === scenario.name && s.status === 'ok');
  if (before) return before.seconds;
  const cases = typeof scenario.run === 'function' ? null : plainCases(scenario, options);
  if (cases) {
    return cases.reduce((sum, c) => {
      const variants = c.variants.filter((v) => !v.fullOnly || options.mode === 'full').length;
      const { rounds, seconds, warmupSeconds } = httpTiming(options.mode, scenario, c);
      return sum + variants * (START_SECONDS + warmupSeconds + rounds * seconds);
    }, 0);
  }
  const own = scenario.estimate && scenario.estimate[options.headlineOnly ? 'headline' : options.mode];
  return typeof own === 'number' ? own : FLAT_GUESS_SECONDS;
}

module.exports = { estimateSeconds, formatClock };
