'use strict';
// @fastify/static's errors (made with @fastify/error there): the same names, codes, messages and
// status codes, so error handlers that test `err.code` behave the same.
const { format } = require('util');

function fastifyError(code, message, statusCode = 500, Base = Error) {
  class FastifyError extends Base {
    constructor(...args) {
      super(format(message, ...args));
      this.name = 'FastifyError';
      this.code = code;
      this.statusCode = statusCode;
    }
  }
  return FastifyError;
}

module.exports = {
  FST_STATIC_INVALID_OPTION: fastifyError('FST_STATIC_INVALID_OPTION', '"%s" option %s'),
  FST_STATIC_INVALID_OPTION_VALUE: fastifyError('FST_STATIC_INVALID_OPTION_VALUE', '"%s" option %s', 500, TypeError),
  FST_STATIC_MULTIROOT_LIST_CONFLICT: fastifyError(
    'FST_STATIC_MULTIROOT_LIST_CONFLICT',
    'multi-root with list option is not supported',
    500,
    TypeError,
  ),
  FST_STATIC_INVALID_REDIRECT_URL: fastifyError('FST_STATIC_INVALID_REDIRECT_URL', 'Invalid redirect URL: "%s"', 400),
  FST_STATIC_FORBIDDEN_PATH: fastifyError('FST_STATIC_FORBIDDEN_PATH', 'Forbidden', 403),
};
