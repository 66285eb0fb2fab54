// This entry's module.exports is a function: 'export *' would also give Bun's users its
// length, name and prototype as named exports, so the names are listed (package.test.js checks
// them against module.exports).
import m from './compression.js';

export const { filter, compression, ContentCache, sharedCache, poolStats } = m;
export default m;
