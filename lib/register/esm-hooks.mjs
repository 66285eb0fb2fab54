// module.register resolve hooks (Node >= 20.6; they run on the loader thread): the ESM side of
// ssr-native/register, for an app that itself writes `import ... from 'content-type'` or
// 'serve-static' (and for Node versions that route a CommonJS module's require through these
// hooks). Same decisions as the CommonJS hook (decide.js); each swap is posted back on `port`
// so the main thread's `active` stays complete.
import { fileURLToPath, pathToFileURL } from 'node:url';
import decide from './decide.js';

let parts = new Set();
let port;

export function initialize(data) {
  parts = new Set(data.parts);
  port = data.port;
}

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  if (specifier !== 'content-type' && specifier !== 'etag' && specifier !== 'serve-static') return result;
  if (!result.url.startsWith('file:')) return result;
  const resolved = fileURLToPath(result.url);
  const parentFile = context.parentURL?.startsWith('file:') ? fileURLToPath(context.parentURL) : undefined;
  const verdict = decide.replacementFor(specifier, resolved, parentFile, parts);
  if (!verdict) return result;
  port?.postMessage({ part: verdict.part, resolved });
  return { url: pathToFileURL(verdict.file).href, format: 'commonjs', shortCircuit: true };
}
