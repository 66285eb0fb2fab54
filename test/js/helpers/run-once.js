'use strict';
// Suites whose answer does not depend on the JS runtime (a browser's pixels of the engine's bytes,
// tsc over the declarations) run once, under the machine's Node in `npm test`. scripts/runtimes.js
// sets SSR_NATIVE_OTHER_RUNTIME when it runs the suites again under Node 22/24/26 and Bun; there
// these tests skip, visibly, with this reason. Keeps CI inside its time budget.

/** The skip reason under scripts/runtimes.js, else null. */
function runtimeIndependentSkip() {
  return process.env.SSR_NATIVE_OTHER_RUNTIME
    ? "runtime-independent: runs once, under the machine's Node in npm test"
    : null;
}

module.exports = { runtimeIndependentSkip };
