// The named exports are the CommonJS module's own (Node and Bun read them from its
// module.exports), so the list is written once, in cache.js.
export * from './cache.js';
export { default } from './cache.js';
