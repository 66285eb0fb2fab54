// The named exports are the CommonJS module's own (Node and Bun read them from its
// module.exports), so the list is written once, in index.js.
export * from './index.js';
export { default } from './index.js';
