declare namespace register {
  /** The parts of ssr-native/register (SSR_NATIVE_REGISTER selects them; default all). */
  type Part = 'content-type' | 'etag' | 'static' | 'compression';
}

/** What ssr-native/register installed and swapped. */
declare const register: {
  /** Enabled parts -> the original package files swapped so far. */
  readonly active: Partial<Record<register.Part, Set<string>>>;
  /** ssr-native's files, by what they replace. */
  readonly replacements: Readonly<
    Record<'content-type@1' | 'content-type@2' | 'etag' | 'static' | 'compression', string>
  >;
  /** The content-type files replaced so far (either major). */
  readonly redirected: Set<string>;
  /** The file that replaces content-type 1.x. */
  readonly replacement: string;
  /** Whether the ESM resolve hooks are installed (--import on Node >= 20.6). */
  readonly esmHooks: boolean;
};
export = register;
