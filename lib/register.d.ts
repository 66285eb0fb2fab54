/** What ssr-native/register installed: the content-type files redirected so far and our file. */
declare const register: { readonly redirected: Set<string>; readonly replacement: string };
export = register;
