// ssr-native/angular as an Angular server.ts uses it (the fixture compiles the same under the
// `ng new` tsconfig; this checks the declarations without Angular installed).
import type { IncomingMessage, ServerResponse } from 'http';
import { cacheCommonEngine, ssgCacheOf, writeResponse } from 'ssr-native/angular';
import type { SsgPageCacheStats } from 'ssr-native/angular';
import { FileCache } from 'ssr-native';

declare class CommonEngine {
  private retrieveSSGPage;
  render(opts: { url?: string; publicPath?: string; documentFilePath?: string }): Promise<string>;
}

const engine: CommonEngine = cacheCommonEngine(new CommonEngine(), { maxPages: 100, cache: new FileCache() });
const stats: SsgPageCacheStats | undefined = ssgCacheOf(engine)?.stats();
const reads: number | undefined = stats?.reads;

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  await writeResponse(new Response('<p>x</p>'), req, res);
  await writeResponse(new Response(null), req, res, { maxBuffer: 1024 });
}

// @ts-expect-error a string is not an engine
cacheCommonEngine('engine');
// @ts-expect-error maxPages is a number
cacheCommonEngine(new CommonEngine(), { maxPages: '10' });

export { handle, reads };
