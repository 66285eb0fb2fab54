// `node --import ssr-native/register server.mjs`: installs the CommonJS resolve hook (see
// register.js). It affects `require('content-type')` from CommonJS packages such as Express.
import register from './register.js';

export default register;
