// ssr-native/critical-css: the declarations are the engine's (lib/critical-css/index.d.ts); this entry is the
// node:http / Express face that carries them.
export * from '../critical-css';
export { default } from '../critical-css';
