/// <reference types="node" />
import type { IncomingMessage, ServerResponse } from 'http';
import type { FileCache } from '../files/file-cache';

/** Angular's beasties options (the defaults are those of @angular/ssr's InlineCriticalCssProcessor). */
export interface AngularBeastiesOptions {
  /** Prefix of the stylesheet hrefs to strip before resolving them in the folder. Default ''. */
  publicPath?: string;
  /** Minify the inlined CSS. Default false (as Angular's server-side processor). */
  minify?: boolean;
  /**
   * How the stylesheet link is deferred. Default: as the Angular of `beasties` does it: 'media'
   * (Angular 21: media="print" onload="this.media='all'", Angular's CSP override under ngCspNonce)
   * or 'media-script' (Angular 22.2: media="print" data-beasties-media="all" and one script at the
   * end of <body>; needs beasties '0.5').
   */
  preload?: 'media' | 'media-script';
  /** A <noscript> copy of the deferred link. Default true. */
  noscriptFallback?: boolean;
  /** Inline the @font-face rules the critical CSS uses. Default true. */
  inlineFonts?: boolean;
  /**
   * Whose output to write: beasties '0.4' (Angular 21's @angular/ssr and @angular/build) or '0.5'
   * (Angular 22.2+). Default: from the installed @angular/ssr's major (<= 21: '0.4'; else '0.5').
   */
  beasties?: '0.4' | '0.5';
  /** Angular's setting only (false); another value is a RangeError. */
  pruneSource?: false;
  reduceInlineStyles?: false;
  mergeStylesheets?: false;
}

export interface CriticalCssOptions extends AngularBeastiesOptions {
  /** The folder the pages' stylesheet hrefs resolve in (Angular's dist/<app>/browser). */
  browserDistFolder?: string;
  /** Alias of browserDistFolder (beasties' name). */
  path?: string;
  /** Bound on the compiled stylesheet plans the engine keeps (default 16). */
  maxPlans?: number;
  /** Pages larger than this (bytes) go out untouched. Default 2 MiB. */
  maxBuffer?: number;
  /** Bound on the memo of inlined pages that repeat (prerendered pages), bytes. Default 16 MiB. */
  memoBytes?: number;
  /** Bound on the memo's pages. Default 256; 0 turns the memo off. */
  memoPages?: number;
  /** A FileCache to read the stylesheets through (e.g. serveStatic(...).cache). Default: its own. */
  cache?: FileCache;
  /** The `name` label of its metrics (kind critical_css). Default: the folder. */
  name?: string;
  /** Load the folder's top-level *.css files and compile their plans (libuv's pool) at once. Default true. */
  warm?: boolean;
}

export interface CriticalCssStats {
  /** Stylesheet plans held, and their bytes. */
  plans: number;
  planBytes: number;
  /**
   * Pages given to the engine; inlined: at least one linked stylesheet read and applied; unstyled:
   * links found, none readable (links left as they were); skipped: left unchanged by the engine, of
   * which overBound: more than 64 stylesheet links or more than 4 MiB of CSS to inline.
   */
  pages: number;
  inlined: number;
  unstyled: number;
  skipped: number;
  overBound: number;
  /** Stylesheets compiled into plans, and those that failed to compile or could not be read. */
  compiled: number;
  compileErrors: number;
  readErrors: number;
  /** Hrefs refused because their file, links followed, lies outside browserDistFolder. */
  outsideFolder: number;
  /** Pages the engine threw on (sent unchanged). */
  errors: number;
  /** Answers the middleware let through untouched (not HTML, encoded, a 304, a stream body...), in every adapter. */
  passedThrough: number;
  /** Pages over maxBuffer, sent as they were. */
  tooLarge: number;
  /** Memo of repeated pages. */
  memoPages: number;
  memoBytes: number;
  memoHits: number;
  memoStores: number;
  memoEvictions: number;
  /** Stylesheets loaded before a page could be processed, read synchronously, or not found. */
  stylesheetLoads: number;
  stylesheetSyncReads: number;
  stylesheetMisses: number;
  [field: string]: number;
}

/** One engine with its stylesheet reads, memo and counters; share it among entry points. */
export declare class CriticalCss {
  constructor(options: CriticalCssOptions);
  readonly path: string;
  readonly cache: FileCache;
  processSync<T extends string | Buffer>(html: T): T;
  stats(): CriticalCssStats;
  close(): void;
}

export interface CriticalCssControls {
  readonly criticalCss: CriticalCss;
  stats(): CriticalCssStats;
  close(): void;
}

export declare const ANGULAR_DEFAULTS: Readonly<Required<AngularBeastiesOptions>>;

/** `html` with its critical CSS inlined; a string for a string, a Buffer for a Buffer. */
export declare function inlineCriticalCss<T extends string | Buffer>(
  html: T,
  options: CriticalCssOptions | CriticalCss,
): T;

/** Middleware for node:http and Express 4/5: every text/html answer after it gets its critical CSS. */
export declare function criticalCss(
  options: CriticalCssOptions | CriticalCss,
): ((req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void) & CriticalCssControls;

declare const criticalCssModule: {
  inlineCriticalCss: typeof inlineCriticalCss;
  criticalCss: typeof criticalCss;
  CriticalCss: typeof CriticalCss;
  ANGULAR_DEFAULTS: typeof ANGULAR_DEFAULTS;
};
export default criticalCssModule;
