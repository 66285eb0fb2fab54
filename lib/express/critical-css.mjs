// The named exports are the CommonJS module's own (Node and Bun read them from its
// module.exports), so the list is written once, in critical-css.js.
export * from './critical-css.js';
export { default } from './critical-css.js';
