// The named exports are the CommonJS module's own (Node and Bun read them from its
// module.exports), so the list is written once, in v2.js.
export * from './v2.js';
export { default } from './v2.js';
