// `node --import ssr-native/register server.mjs`: installs the CommonJS resolve hook (index.js),
// which covers everything Express, body-parser, type-is, negotiator and Koa require (they are
// CommonJS), plus resolve hooks for the app's own ESM imports of 'content-type' and
// 'serve-static': module.registerHooks (in-thread) where Node has it, else module.register
// (Node >= 20.6, on a loader thread). Neither prints anything.
import module from 'node:module';
import { MessageChannel } from 'node:worker_threads';
import register from './index.js';
import esmResolve from './esm-resolve.js';

const parts = Object.keys(register.active);
const record = (part, resolved) => register.active[part]?.add(resolved);
if (parts.length > 0 && !register.esmHooks) {
  if (typeof module.registerHooks === 'function') {
    const enabled = new Set(parts);
    module.registerHooks({
      resolve(specifier, context, nextResolve) {
        const result = nextResolve(specifier, context);
        return esmResolve.swappedResolution(specifier, context, result, enabled, record) || result;
      },
    });
    register.esmHooks = true;
  } else if (typeof module.register === 'function') {
    const { port1, port2 } = new MessageChannel();
    port1.on('message', ({ part, resolved }) => record(part, resolved));
    port1.unref();
    module.register('./esm-hooks.mjs', import.meta.url, { data: { parts, port: port2 }, transferList: [port2] });
    register.esmHooks = true;
  }
}

export default register;
export const { active, replacements, redirected, replacement } = register;
