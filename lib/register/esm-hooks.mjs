// module.register resolve hooks (Node 20.6 to 22.14, where module.registerHooks is missing; they
// run on the loader thread): see esm-resolve.js. Each swap is posted back on `port` so the main
// thread's `active` stays complete.
import esmResolve from './esm-resolve.js';

let parts = new Set();
let port;

export function initialize(data) {
  parts = new Set(data.parts);
  port = data.port;
}

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  const swapped = esmResolve.swappedResolution(specifier, context, result, parts, (part, resolved) =>
    port?.postMessage({ part, resolved }),
  );
  return swapped || result;
}
