'use strict';
// The paint camera (first-paint-camera.js) is steady and still sees: a page whose linked
// stylesheet restyles <select>s (appearance: none, its own padding) paints, shot after shot, as
// the same page with those rules in a <style> (Chromium's <select> keeps inner text where its
// default appearance put it when the sheet applies after the element was first styled: the
// paint check's reference then varied between runs); and the page with one rule of its <style>
// dropped paints otherwise. Pages and sheets come from a seeded generator
// (CAMERA_SEED=n, default 1); a failure names the seed and prints the page and sheet.
const test = require('node:test');
const assert = require('node:assert/strict');
const { rng } = require('./corpus.js');
const { differingPixels } = require('./png.js');
const { runtimeIndependentSkip } = require('../helpers/run-once.js');
const { openCamera } = require('./first-paint-camera.js');

const SEED = Number(process.env.CAMERA_SEED || 1);
const SHOTS = 20;
const VIEWPORTS = [{ width: 390, height: 844 }];

// { rules: [css text], body }: selects (single and multiple), each rule visibly painting
// something on the page (a colour, a border, a padding), drawn from r.
function generate(r) {
  const px = (lo, hi) => `${lo + r.int(hi - lo + 1)}px`;
  const colour = () => `#${r.int(0x1000000).toString(16).padStart(6, '0')}`;
  // the select rule sets no color: one that does paints the same either way
  const select = [
    '-webkit-appearance: none;',
    `border: 1px solid ${colour()};`,
    `padding: ${px(2, 9)} ${px(20, 40)} ${px(2, 9)} ${px(6, 16)};`,
    r.chance(0.5) ? 'width: 100%;' : '',
    r.chance(0.5) ? `background: ${r.chance(0.5) ? 'transparent' : colour()};` : '',
  ];
  const rules = [
    `select { ${select.filter(Boolean).join(' ')} }`,
    `select[multiple] { height: auto; padding-left: ${px(3, 14)}; }`,
    `h1 { color: ${colour()}; font-size: ${px(20, 36)}; }`,
    `p { background: ${colour()}; padding: ${px(1, 8)}; }`,
  ];
  const options = (n) =>
    Array.from({ length: n }, (_, i) => `<option${i === n - 1 ? ' selected' : ''}>${'ABCDEFGH'[i]}</option>`).join('');
  const parts = ['<h1>Steady</h1>'];
  for (let i = 0, n = 2 + r.int(3); i < n; i++) {
    parts.push(`<p>row ${i}</p>`);
    parts.push(
      r.chance(0.3)
        ? `<select multiple>${options(2 + r.int(3))}</select>`
        : `<select>${options(2 + r.int(4))}</select>`,
    );
  }
  return { rules, body: parts.join('\n') };
}

const page = (head, body) =>
  `<!DOCTYPE html>\n<html><head><meta charset="utf-8">${head}</head><body>\n${body}\n</body></html>`;

test(
  'the paint camera is steady on a linked stylesheet and still sees one rule dropped',
  { timeout: 300000 },
  async (t) => {
    if (runtimeIndependentSkip()) return t.skip(runtimeIndependentSkip());
    const opened = await openCamera();
    if (opened.skip) return t.skip(opened.skip);
    const { camera } = opened;
    try {
      const r = rng(SEED);
      const { rules, body } = generate(r);
      const dropped = r.int(rules.length);
      const input = `CAMERA_SEED=${SEED}\nsheet:\n${rules.join('\n')}\npage body:\n${body}\ndropped rule: ${rules[dropped]}`;
      camera.show(
        {
          linked: page('<link rel="stylesheet" href="styles.css">', body),
          inlined: page(`<style>${rules.join('\n')}</style>`, body),
          dropped: page(`<style>${rules.filter((_, i) => i !== dropped).join('\n')}</style>`, body),
        },
        rules.join('\n'),
      );
      camera.holdStylesheet = false;
      for (const viewport of VIEWPORTS) {
        await camera.setViewport(viewport);
        const at = `${viewport.width}x${viewport.height}`;
        const inlined = (await camera.shot('inlined', { fullPage: true })).png;
        const differing = [];
        for (let i = 0; i < SHOTS; i++) {
          const { png, applied } = await camera.shot('linked', { fullPage: true });
          assert.equal(applied, 1, `${at}: the linked stylesheet applied\n${input}`);
          const pixels = differingPixels(png, inlined);
          if (pixels !== 0) differing.push(`shot ${i + 1}: ${pixels} px`);
        }
        assert.deepEqual(differing, [], `${at}: the linked page against its rules inlined\n${input}`);
        const pixels = differingPixels((await camera.shot('dropped', { fullPage: true })).png, inlined);
        assert.ok(pixels > 0, `${at}: one rule dropped paints the same\n${input}`);
      }
    } finally {
      await camera.close();
    }
  },
);
