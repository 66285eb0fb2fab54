'use strict';
// The ESM side of ssr-native/register: a resolve step for module customization hooks, shared by
// the in-thread synchronous hooks (module.registerHooks, Node >= 22.15 / 23.5) and the
// loader-thread asynchronous ones (module.register, Node 20.6+, deprecated from Node 26): the same
// decisions as the CommonJS hook (decide.js), for URLs.
const { fileURLToPath, pathToFileURL } = require('url');
const { replacementFor } = require('./decide');

/** The swapped resolution for `result` (what the next hook resolved `specifier` to), or undefined. */
function swappedResolution(specifier, context, result, parts, onSwap) {
  if (
    specifier !== 'content-type' &&
    specifier !== 'etag' &&
    specifier !== 'serve-static' &&
    specifier !== 'compression'
  )
    return undefined;
  if (typeof result.url !== 'string' || !result.url.startsWith('file:')) return undefined;
  const resolved = fileURLToPath(result.url);
  const parentFile = context.parentURL?.startsWith('file:') ? fileURLToPath(context.parentURL) : undefined;
  const verdict = replacementFor(specifier, resolved, parentFile, parts);
  if (!verdict) return undefined;
  onSwap(verdict.part, resolved);
  return { url: pathToFileURL(verdict.file).href, format: 'commonjs', shortCircuit: true };
}

module.exports = { swappedResolution };
