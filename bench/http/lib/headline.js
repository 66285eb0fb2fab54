'use strict';
// A table's summary row (see lib/summary.js) from per-round samples: each round measured every
// variant under the same conditions, so the spread of the per-round ratios is the ratio's noise.
const { median } = require('./median');

/**
 * samples: { variantName: [value per round] }; baseline/ours: variant names; peers: other names
 * worth a "best peer" entry; higherIsBetter: false for times (ns/call, ms), true for rates.
 */
function headlineFromSamples({ measure, samples, baseline, ours, peers = [], higherIsBetter = true }) {
  if (!samples[baseline] || !samples[ours]) return null;
  const better = (mine, base) => (higherIsBetter ? mine / base : base / mine);
  const perRound = (name) =>
    samples[name].map((v, round) => better(v, samples[baseline][round])).filter(Number.isFinite);
  const noiseOf = (ratios) =>
    ratios.length > 1 ? (Math.max(...ratios) - Math.min(...ratios)) / 2 / median(ratios) : null;
  return {
    measure,
    higherIsBetter,
    baseline: { name: baseline, value: median(samples[baseline]) },
    ours: { name: ours, value: median(samples[ours]) },
    ratio: better(median(samples[ours]), median(samples[baseline])),
    noise: noiseOf(perRound(ours)),
    peers: peers
      .filter((name) => samples[name])
      .map((name) => ({
        name,
        value: median(samples[name]),
        ratio: better(median(samples[name]), median(samples[baseline])),
      })),
  };
}

module.exports = { headlineFromSamples };
