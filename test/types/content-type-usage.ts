// Compiled (not run) by test/js/package/package.test.js: the content-type and register declarations.
import http = require('http');
import contentType = require('ssr-native/content-type');
import register = require('ssr-native/register');
import ssr = require('ssr-native');

const parsed: contentType.ContentType = contentType.parse('text/html; charset=utf-8');
const charset: string | undefined = parsed.parameters.charset;
parsed.parameters.charset = 'utf-8';
const header: string = contentType.format(parsed);
contentType.format({ type: 'text/html' });
declare const req: http.IncomingMessage;
declare const res: http.ServerResponse;
contentType.parse(req);
contentType.parse(res);
const settings: contentType.ContentTypeSettings = contentType.configure({ cacheSize: 256, scanner: 'native' });
const hits: number = contentType.cacheStats().hits;
contentType.clearCache();
const redirected: Set<string> = register.redirected;
const viaRoot: string = ssr.contentType.format(ssr.contentType.parse('text/html'));

// @ts-expect-error only 'js' and 'native' scanners exist
contentType.configure({ scanner: 'wasm' });
// @ts-expect-error format needs a type
contentType.format({ parameters: {} });

export { charset, header, settings, hits, redirected, viaRoot };
