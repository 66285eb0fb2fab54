// ssr-native/critical-css and the criticalCss of /angular, /koa, /hono as servers use them.
import { inlineCriticalCss, criticalCss, CriticalCss } from 'ssr-native/critical-css';
import type { CriticalCssStats } from 'ssr-native/critical-css';
import { criticalCss as angularCriticalCss } from 'ssr-native/angular';
import { criticalCss as koaCriticalCss } from 'ssr-native/koa';
import { criticalCss as honoCriticalCss } from 'ssr-native/hono';

const page: string = inlineCriticalCss('<html></html>', { browserDistFolder: 'dist/browser' });
const bytes: Buffer = inlineCriticalCss(Buffer.from('<html></html>'), { path: 'dist/browser', minify: true });
const shared = new CriticalCss({ browserDistFolder: 'dist/browser', maxBuffer: 1 << 20, memoPages: 0 });
const middleware = criticalCss(shared);
const stats: CriticalCssStats = middleware.stats();
const pages: number = stats.pages;
angularCriticalCss({ browserDistFolder: 'dist/browser', preload: 'media' });
koaCriticalCss(shared).close();
honoCriticalCss({ browserDistFolder: 'dist/browser' });

// @ts-expect-error html is a string or a Buffer
inlineCriticalCss(42, { browserDistFolder: 'x' });
// @ts-expect-error maxBuffer is a number
criticalCss({ browserDistFolder: 'x', maxBuffer: '1mb' });

export { page, bytes, pages };
