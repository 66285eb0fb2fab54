'use strict';
// ssr-native/compression: the Express / node:http face lives with the other Express faces
// (lib/express/compression.js); this entry keeps the package's export key.
module.exports = require('../express/compression');
