'use strict';
// Real Tailwind CSS builds for the critical-CSS check's real-sheet corpus (issue #43): a
// generated Tailwind-shaped sheet (test/js/critical-css/corpus.js) only has the shapes we thought
// of, so the corpus also holds what Tailwind 3 and 4 themselves write for one fixed list of
// utility classes. Nothing is committed: scripts/test-angular-versions.js installs the packages
// below into the corpus folder and runs this file there once to write the sheets:
//   node scripts/angular-processor-check-tailwind.js <corpus folder>
const fs = require('fs');
const path = require('path');
const { createRequire } = require('module');

// The class names an app's templates would use, fixed so that a build is the same on every run:
// layout, flex and grid, spacing, colours, typography, borders and effects, then variants
// (responsive, state, dark, peer and group) and arbitrary values, which Tailwind writes with
// escaped selectors, @media and (v4) nested rules.
const CANDIDATES = `
  container block inline-block inline flex inline-flex grid inline-grid hidden contents table
  static relative absolute fixed sticky inset-0 inset-x-0 top-0 right-0 bottom-0 left-0 top-4 -top-2
  z-0 z-10 z-20 z-50 isolate overflow-hidden overflow-auto overflow-x-auto overflow-y-scroll
  box-border box-content float-right clear-both object-cover object-center aspect-square aspect-video
  flex-row flex-col flex-wrap flex-1 flex-auto flex-none grow shrink-0 basis-1/2 order-first order-2
  items-start items-center items-end items-baseline justify-start justify-center justify-between
  justify-end self-center self-stretch content-center place-items-center gap-0 gap-1 gap-2 gap-4
  gap-x-6 gap-y-8 grid-cols-1 grid-cols-2 grid-cols-3 grid-cols-12 col-span-2 col-span-full
  col-start-2 grid-rows-3 row-span-2 grid-flow-col auto-rows-fr
  p-0 p-1 p-2 p-4 p-6 p-8 px-2 px-4 px-6 py-1 py-2 py-3 py-12 pt-4 pr-3 pb-8 pl-5
  m-0 m-2 m-auto mx-auto my-4 mt-2 mt-8 mr-1 mb-4 ml-auto -mt-1 -ml-4
  space-x-2 space-x-4 space-y-2 space-y-6 -space-x-1 divide-x divide-y divide-y-2 divide-gray-200
  w-4 w-8 w-12 w-1/2 w-1/3 w-2/3 w-full w-screen w-auto w-fit min-w-0 max-w-sm max-w-md max-w-2xl
  max-w-7xl max-w-prose h-4 h-8 h-16 h-full h-screen min-h-screen max-h-96 size-6
  text-xs text-sm text-base text-lg text-xl text-2xl text-4xl text-6xl font-thin font-light
  font-normal font-medium font-semibold font-bold font-extrabold font-sans font-serif font-mono
  italic not-italic uppercase lowercase capitalize normal-case underline line-through no-underline
  tracking-tight tracking-wide leading-none leading-tight leading-relaxed leading-7 text-left
  text-center text-right text-justify truncate text-ellipsis whitespace-nowrap whitespace-pre-wrap
  break-words break-all antialiased tabular-nums list-disc list-inside indent-4 align-middle
  text-white text-black text-gray-500 text-gray-900 text-slate-700 text-red-600 text-blue-600
  text-emerald-500 text-indigo-700 text-amber-400 bg-white bg-black bg-transparent bg-gray-50
  bg-gray-100 bg-gray-800 bg-slate-900 bg-red-500 bg-blue-500 bg-blue-600 bg-indigo-600
  bg-green-100 bg-yellow-50 bg-black/50 bg-white/75 bg-gradient-to-r from-pink-500 via-purple-500
  to-indigo-500 bg-cover bg-center bg-no-repeat
  border border-0 border-2 border-t border-b-4 border-x border-gray-200 border-gray-300 border-red-500
  border-transparent border-dashed rounded rounded-md rounded-lg rounded-xl rounded-full rounded-t-lg
  rounded-none outline-none ring ring-1 ring-2 ring-blue-500 ring-offset-2 shadow shadow-sm shadow-md
  shadow-lg shadow-xl shadow-none opacity-0 opacity-50 opacity-75 opacity-100 blur-sm backdrop-blur
  grayscale mix-blend-multiply cursor-pointer cursor-not-allowed pointer-events-none select-none
  resize-none appearance-none sr-only not-sr-only visible invisible
  transition transition-colors transition-all duration-150 duration-300 ease-in-out ease-out
  delay-75 animate-spin animate-ping animate-pulse animate-bounce scale-95 scale-100 rotate-45
  -rotate-90 translate-x-1 -translate-y-1/2 origin-top-right transform
  sm:block sm:flex sm:hidden sm:px-6 sm:text-sm sm:grid-cols-2 md:flex md:hidden md:block md:w-1/2
  md:grid-cols-3 md:text-lg md:px-8 md:py-16 md:mt-0 md:flex-row md:items-center md:space-x-6
  lg:flex lg:hidden lg:grid-cols-4 lg:w-1/3 lg:px-8 lg:text-5xl lg:max-w-7xl xl:grid-cols-6
  xl:container 2xl:px-0 max-md:hidden max-sm:text-center
  hover:bg-gray-100 hover:bg-blue-700 hover:text-white hover:text-blue-800 hover:underline
  hover:shadow-lg hover:scale-105 hover:opacity-75 focus:outline-none focus:ring-2
  focus:ring-indigo-500 focus:border-blue-500 focus-visible:ring focus-within:ring-2 active:bg-blue-800
  disabled:opacity-50 disabled:cursor-not-allowed visited:text-purple-600 first:pt-0 last:pb-0
  last:border-0 odd:bg-white even:bg-gray-50 placeholder:text-gray-400 placeholder-gray-400
  before:content-[''] before:absolute after:block file:mr-4 file:border-0 selection:bg-yellow-200
  marker:text-sky-400 open:bg-white checked:bg-blue-600 invalid:border-red-500 required:border-red-500
  dark:bg-gray-900 dark:bg-slate-800 dark:text-white dark:text-gray-300 dark:border-gray-700
  dark:hover:bg-gray-700 dark:hover:text-white md:hover:bg-transparent md:dark:hover:text-blue-500
  lg:hover:underline sm:focus:ring-4
  group group-hover:text-white group-hover:visible group-hover:opacity-100 group-focus:underline
  group-hover:translate-x-1 peer peer-checked:bg-blue-600 peer-checked:after:translate-x-full
  peer-focus:ring-4 peer-invalid:visible peer-placeholder-shown:top-2 peer-disabled:opacity-50
  w-[37px] h-[calc(100vh-4rem)] top-[117px] max-w-[1440px] min-h-[50vh] text-[13px] text-[#1da1f2]
  bg-[#f5f5f4] bg-[url('/img/hero.png')] grid-cols-[200px_minmax(0,1fr)] p-[3px] mt-[-2px]
  z-[100] leading-[1.15] tracking-[0.02em] rounded-[10px] shadow-[0_2px_8px_rgba(0,0,0,0.15)]
  [mask-type:luminance] [&>li]:mb-2 [&_p]:mt-4 supports-[display:grid]:grid
  data-[state=open]:bg-gray-100 aria-expanded:rotate-180 aria-[sort=ascending]:bg-blue-50
  motion-safe:animate-spin motion-reduce:transition-none print:hidden portrait:hidden rtl:text-right
  !mt-0 !hidden
`
  .trim()
  .split(/\s+/);

// The markup Tailwind 3 scans for those classes (content: [{ raw }]); Tailwind 4 takes them as is.
const HTML = `<div class="${CANDIDATES.join(' ').replace(/"/g, '&quot;')}"></div>`;

// Tailwind 3 through its PostCSS plugin, the way a PostCSS build (Angular's included) runs it.
async function buildTailwind3(req) {
  const postcss = req('postcss');
  const tailwind = req('tailwindcss3');
  const input = '@tailwind base;\n@tailwind components;\n@tailwind utilities;\n';
  const result = await postcss([tailwind({ content: [{ raw: HTML }] })]).process(input, { from: undefined });
  return result.css;
}

// Tailwind 4 through compile(), the API its PostCSS plugin and Vite plugin build on, reading the
// package's own stylesheets for `@import "tailwindcss"` (installed here under another name).
async function buildTailwind4(req) {
  const { compile } = req('tailwindcss4');
  const root = path.dirname(req.resolve('tailwindcss4/package.json'));
  const loadStylesheet = async (id, base) => {
    let file;
    if (id === 'tailwindcss') file = path.join(root, 'index.css');
    else if (id.startsWith('tailwindcss/')) file = req.resolve(`tailwindcss4/${id.slice('tailwindcss/'.length)}`);
    else file = path.resolve(base, id);
    return { path: file, base: path.dirname(file), content: fs.readFileSync(file, 'utf8') };
  };
  const compiler = await compile('@import "tailwindcss";\n', { base: root, loadStylesheet });
  return compiler.build(CANDIDATES);
}

// Both majors are installed side by side under aliases; postcss is pinned as Tailwind 3's host.
const TAILWIND_SHEETS = [
  {
    file: 'tailwind3.css',
    packages: ['tailwindcss3@npm:tailwindcss@3.4.19', 'postcss@8.5.34'],
    build: buildTailwind3,
  },
  { file: 'tailwind4.css', packages: ['tailwindcss4@npm:tailwindcss@4.3.5'], build: buildTailwind4 },
];

// Writes each sheet into the folder, with the packages resolved from that folder's node_modules.
async function buildTailwindSheets(folder) {
  const req = createRequire(path.join(folder, 'package.json'));
  for (const sheet of TAILWIND_SHEETS) {
    const css = await sheet.build(req);
    fs.writeFileSync(path.join(folder, sheet.file), css);
    console.log(`${sheet.file}: ${Buffer.byteLength(css)} bytes (${sheet.packages[0]})`);
  }
}

if (require.main === module) {
  buildTailwindSheets(path.resolve(process.argv[2])).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

module.exports = { CANDIDATES, TAILWIND_SHEETS, buildTailwindSheets };
