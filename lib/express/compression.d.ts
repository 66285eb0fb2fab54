// ssr-native/compression: the declarations are the engine's (lib/compression/index.d.ts); this
// entry is the node:http / Express face that carries them.
import compression = require('../compression');
export = compression;
