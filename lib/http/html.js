'use strict';
// "Is this answer a page?", read from its Content-Type, once for every stage that asks.
//   isHtml         text/html (any parameters): the answers critical CSS inlines into and Angular's
//                  writeResponse reads whole
//   isHtmlOrXhtml  text/html or application/xhtml+xml: the pages the dictionary transport learns
//                  from and announces its dictionary on
const HTML_REGEXP = /^\s*text\/html\s*(?:;|$)/i;
const HTML_OR_XHTML_REGEXP = /^\s*(?:text\/html|application\/xhtml\+xml)\b/i;

/** Whether a Content-Type value is text/html. */
function isHtml(type) {
  return typeof type === 'string' && HTML_REGEXP.test(type);
}

/** Whether a Content-Type value is text/html or application/xhtml+xml. */
function isHtmlOrXhtml(type) {
  return typeof type === 'string' && HTML_OR_XHTML_REGEXP.test(type);
}

module.exports = { isHtml, isHtmlOrXhtml };
