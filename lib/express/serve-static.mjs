// The named exports are the CommonJS module's own (Node and Bun read them from its
// module.exports), so the list is written once, in serve-static.js.
export * from './serve-static.js';
export { default } from './serve-static.js';
