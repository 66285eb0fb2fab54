// ssr-native/cache: the declarations are the engine's (lib/cache/index.d.ts); this entry is the
// node:http / Express face that carries them.
export * from '../cache';
export { default } from '../cache';
