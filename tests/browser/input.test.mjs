// Input tests: the real clipboard in the text fields (Ctrl+V / C / X / A, Shift+Insert,
// ASCII and Chinese, the tokens field and the config box) and the mouse wheel in every
// scrollable region, both directions, small and large deltas.
import { test, assert } from './lib/harness.mjs';
import {
  openLab, labState, waitForState, waitSettled, layoutRect, clickRect, parkMouse, note, pickExperiment, scrollSetupTo,
} from './lib/lab.mjs';

const T = 10000;

async function grantClipboard(t) {
  await t.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.origin });
}
const writeClipboard = (t, text) => t.page.evaluate((s) => navigator.clipboard.writeText(s), text);
const readClipboard = (t) => t.page.evaluate(() => navigator.clipboard.readText());

/** Click into a field (a layout rect) and wait until ImGui edits it. A field of the setup
 *  panel out of its visible part (the notes panel below it takes room) is scrolled to first. */
async function editField(t, key, opts = {}) {
  const s = await scrollSetupTo(t, key, T);
  await clickRect(t, layoutRect(s, key), opts);
  return waitForState(t, (x) => x.fields.editing, { timeout: T, message: `editing ${key}` });
}

/** Press a chord (one quick press, as Playwright does it) and wait until the page settles. */
async function chord(t, keys) {
  await t.page.keyboard.press(keys);
  return waitSettled(t, { timeout: T, message: `the page settles after ${keys}` });
}

const TOKENS_EN = 'the cat sat on the mat because it was tired';
const TOKENS_ZH = '小猫追着球跑，它玩得很开心。';

test('input: Ctrl+V, Ctrl+A, Ctrl+C, Ctrl+X in the tokens field with the real clipboard', async (t) => {
  await grantClipboard(t);
  await openLab(t, '#stage=softmax');
  await editField(t, 'tokens', { fx: 0.2 });
  await writeClipboard(t, TOKENS_EN);
  let s = await chord(t, 'Control+V');
  assert(s.fields.tokens === TOKENS_EN, `after Ctrl+V the field holds ${JSON.stringify(s.fields.tokens)}`);
  s = await waitForState(t, (x) => x.tokens.length === 10, { timeout: T, message: 'ten tokens' });
  assert(s.tokens.join(' ') === TOKENS_EN && s.config.seq_len === 10, `tokens ${JSON.stringify(s.tokens)}, seq_len ${s.config.seq_len}`);

  // Select all, copy: the clipboard gets the whole field; the field keeps it.
  await writeClipboard(t, 'something else');
  s = await chord(t, 'Control+A');
  assert(s.fields.editing.select_start === 0 && s.fields.editing.select_end === [...TOKENS_EN].length,
    `Ctrl+A selects ${JSON.stringify(s.fields.editing)}`);
  await chord(t, 'Control+C');
  await t.waitFor((want) => navigator.clipboard.readText().then((x) => x === want), { arg: TOKENS_EN, timeout: T, message: 'Ctrl+C copies the field' });
  // Cut: the field is empty, the clipboard holds what it had.
  await writeClipboard(t, 'something else');
  await chord(t, 'Control+A');
  s = await chord(t, 'Control+X');
  assert(s.fields.tokens === '' && s.fields.editing.text === '', `after Ctrl+X the field holds ${JSON.stringify(s.fields)}`);
  assert(await readClipboard(t) === TOKENS_EN, `Ctrl+X put ${JSON.stringify(await readClipboard(t))} on the clipboard`);
  // Paste it back, twice: the second paste goes after the first (no selection).
  await chord(t, 'Control+V');
  s = await chord(t, 'Control+V');
  assert(s.fields.tokens === TOKENS_EN + TOKENS_EN, `two pastes: ${JSON.stringify(s.fields.tokens)}`);
  // A paste replaces the selection; Shift+Insert pastes too.
  await writeClipboard(t, 'a b c');
  await chord(t, 'Control+A');
  s = await chord(t, 'Shift+Insert');
  assert(s.fields.tokens === 'a b c', `Shift+Insert over a selection: ${JSON.stringify(s.fields.tokens)}`);
  // Typing quickly after a paste keeps the order.
  await t.page.keyboard.type(' d e');
  s = await waitSettled(t, { timeout: T });
  assert(s.fields.tokens === 'a b c d e', `paste then typing: ${JSON.stringify(s.fields.tokens)}`);
});

test('input: Chinese text pastes and copies through the clipboard (tokens, 中文 interface)', async (t) => {
  await grantClipboard(t);
  await openLab(t, '#stage=scores&lang=zh');
  await waitForState(t, (x) => x.text_lang === 'zh', { timeout: T, message: 'Chinese interface' });
  await editField(t, 'tokens', { fx: 0.2 });
  await writeClipboard(t, TOKENS_ZH);
  let s = await chord(t, 'Control+V');
  assert(s.fields.tokens === TOKENS_ZH, `pasted ${JSON.stringify(s.fields.tokens)}`);
  s = await waitForState(t, (x) => x.tokens.length === 14, { timeout: T, message: '14 tokens, one per character' });
  assert(s.tokens.join('') === TOKENS_ZH && s.glyph_notes.length === 0, `tokens ${JSON.stringify(s.tokens)}, notes ${JSON.stringify(s.glyph_notes)}`);
  // Copy a part: select all, cut, paste back, then copy everything.
  await chord(t, 'Control+A');
  s = await chord(t, 'Control+X');
  assert(s.fields.tokens === '' && (await readClipboard(t)) === TOKENS_ZH, `cut: field ${JSON.stringify(s.fields.tokens)}`);
  s = await chord(t, 'Control+V');
  assert(s.fields.tokens === TOKENS_ZH, `pasted back ${JSON.stringify(s.fields.tokens)}`);
  await writeClipboard(t, '');
  await chord(t, 'Control+A');
  await chord(t, 'Control+C');
  await t.waitFor((want) => navigator.clipboard.readText().then((x) => x === want), { arg: TOKENS_ZH, timeout: T, message: 'Ctrl+C copies the Chinese text' });
});

test('input: a config pasted into the config box with Ctrl+V loads (ASCII and Chinese comments)', async (t) => {
  await grantClipboard(t);
  await openLab(t, '#stage=input');
  const toml = '# 论文 base 模型的一半: half of the paper\'s base model\n[attention]\nd_model = 256\nnum_heads = 4\nseq_len = 6\n';
  await editField(t, 'config_text');
  await writeClipboard(t, toml);
  let s = await chord(t, 'Control+V');
  assert(s.fields.config === toml, `config box holds ${JSON.stringify(s.fields.config)}`);
  await clickRect(t, layoutRect(s, 'config_load'));
  s = await waitForState(t, (x) => x.config.d_model === 256, { timeout: T, message: 'the pasted config loads' });
  assert(s.config.heads === 4 && s.config.seq_len === 6 && s.errors.length === 0, `config ${JSON.stringify(s.config)}`);
  // The box keeps its text; select all and copy gives it back exactly, newlines and all.
  await editField(t, 'config_text');
  await chord(t, 'Control+A');
  await chord(t, 'Control+C');
  await t.waitFor((want) => navigator.clipboard.readText().then((x) => x === want), { arg: toml, timeout: T, message: 'Ctrl+C copies the config' });
  // JSON replaces it (paste over the selection), then cut empties the box.
  const json = '{"d_model": 64, "num_heads": 8}';
  await writeClipboard(t, json);
  await chord(t, 'Control+A');
  s = await chord(t, 'Control+V');
  assert(s.fields.config === json, `JSON over the selection: ${JSON.stringify(s.fields.config)}`);
  await chord(t, 'Control+A');
  s = await chord(t, 'Control+X');
  assert(s.fields.config === '' && (await readClipboard(t)) === json, `cut: ${JSON.stringify(s.fields.config)}`);
});

// ---------------------------------------------------------------------------
// The wheel. One notch of a mouse wheel (Chromium: deltaY 100 CSS pixels) scrolls
// Dear ImGui's hovered window by min(5 lines, 2/3 of its height); + is down.

/** state().scroll[id], asserting that the region is on screen and can scroll. */
function region(s, id) {
  const r = s.scroll[id];
  assert(r, `no scroll region "${id}" (have: ${Object.keys(s.scroll).join(', ')})`);
  assert(r.max_y > 0, `region "${id}" cannot scroll here: ${JSON.stringify(r)}`);
  return r;
}

/**
 * Wheel at the region's point (fx, fy of it) and return the new scroll_y and the
 * notches the page received (DOM deltas: pixels / 100, lines / 3; + is down).
 * Chromium's emulated devicePixelRatio divides Playwright's delta by it, so the
 * expectation follows what the page got.
 */
async function wheel(t, id, dy, { fx = 0.5, fy = 0.5, dpr = 1 } = {}) {
  const r = (await labState(t.page)).scroll[id];
  await t.page.evaluate(() => {
    if (window.__wheelNotches !== undefined) { window.__wheelNotches = 0; return; }
    window.__wheelNotches = 0;
    window.addEventListener('wheel', (e) => { window.__wheelNotches += e.deltaY / (e.deltaMode === 1 ? 3 : 100); }, true);
  });
  await t.page.mouse.move((r.x + r.w * fx) / dpr, (r.y + r.h * fy) / dpr);
  await t.page.mouse.wheel(0, dy);
  const s = await waitSettled(t, { timeout: T, message: `the page settles after a wheel of ${dy} over ${id}` });
  return { y: s.scroll[id].scroll_y, notches: await t.page.evaluate(() => window.__wheelNotches) };
}

/**
 * Scrolls region `id` with the wheel: to the top, one notch down and up, a small
 * delta (a touchpad's), a large one to the bottom, and back; checks direction and size.
 */
async function checkWheel(t, id, opts = {}) {
  const s = await waitSettled(t, { timeout: T });
  const r = region(s, id);
  const notch = Math.min(5 * s.font_size, 0.67 * r.h);  // ImGui 1.86's step, in framebuffer pixels
  const clamp = (y) => Math.max(0, Math.min(r.max_y, y));
  const near = (a, b) => Math.abs(a - b) <= 1.5;
  const top = await wheel(t, id, -100000, opts);
  assert(top.y === 0, `${id}: a large wheel up leaves scroll_y ${top.y}, not 0`);
  const down = await wheel(t, id, 100 * (opts.dpr || 1), opts);
  assert(down.notches > 0 && down.y > 0 && near(down.y, clamp(down.notches * notch)),
    `${id}: ${down.notches} notch down scrolled to ${down.y}, expected ${clamp(down.notches * notch).toFixed(1)} (notch ${notch.toFixed(1)} px, max ${r.max_y})`);
  const up = await wheel(t, id, -100 * (opts.dpr || 1), opts);
  assert(up.notches < 0 && near(up.y, clamp(down.y + up.notches * notch)), `${id}: ${up.notches} notch up from ${down.y} went to ${up.y}`);
  const small = await wheel(t, id, 20 * (opts.dpr || 1), opts);
  assert(small.y > 0 && small.y < notch && near(small.y, clamp(up.y + small.notches * notch)),
    `${id}: ${small.notches} notch scrolled to ${small.y}, expected ${clamp(up.y + small.notches * notch).toFixed(1)}`);
  const bottom = await wheel(t, id, 100000, opts);
  assert(bottom.y === r.max_y, `${id}: a large wheel down stopped at ${bottom.y}, not the bottom ${r.max_y}`);
  const back = await wheel(t, id, -100 * (opts.dpr || 1), opts);
  assert(back.y < r.max_y && near(back.y, clamp(r.max_y + back.notches * notch)), `${id}: ${back.notches} notch up from the bottom went to ${back.y}`);
  note(t, `${id}: max ${r.max_y}, notch ${notch.toFixed(1)} px: ${down.notches} notch down -> ${down.y}, up -> ${up.y}, ` +
    `${small.notches} notch -> ${small.y}, bottom ${bottom.y}, ${back.notches} notch up -> ${back.y}`);
}

test('input: the wheel scrolls the setup panel both ways (1280x800, the learner\'s screen)', async (t) => {
  await openLab(t, '#stage=input');
  await checkWheel(t, 'Setup/body', { fy: 0.3 });
});

test('input: the wheel scrolls setup, explain, dimensions and cost at 1024x640', async (t) => {
  await openLab(t, '#d_model=512&heads=8&seq_len=10&batch=2&all=1&stage=softmax');
  await checkWheel(t, 'Setup/body', { fy: 0.3 });
  await checkWheel(t, 'Explain', { fy: 0.3 });
  await checkWheel(t, 'Dimensions/dims');
  const s = await waitSettled(t, { timeout: T });
  await clickRect(t, layoutRect(s, 'tab:cost'));
  await waitForState(t, (x) => x.cost_tab_open && x.scroll['Dimensions/cost_table'], { timeout: T, message: 'cost tab' });
  await checkWheel(t, 'Dimensions/cost_table');
}, { viewport: { width: 1024, height: 640 } });

test('input: the wheel scrolls an experiment\'s columns; the help overlay takes the wheel without moving what is behind it', async (t) => {
  await openLab(t, '#stage=input');
  await pickExperiment(t, 'heads');
  const s = await waitForState(t, (x) => x.experiment && x.experiment.key === 'heads' &&
    Object.entries(x.scroll).some(([k, r]) => k.startsWith('Experiment/') && r.max_y > 0), { timeout: T, message: 'heads experiment' });
  const column = Object.entries(s.scroll).filter(([k, r]) => k.startsWith('Experiment/') && r.max_y > 0)
    .sort((a, b) => b[1].max_y - a[1].max_y)[0][0];
  await checkWheel(t, column, { fx: 0.5, fy: 0.2 });
  // Help: '?' opens it over the stepper; the wheel over it scrolls nothing behind it.
  await t.page.keyboard.press('Escape');
  await waitForState(t, (x) => !x.experiment, { timeout: T, message: 'back to the stepper' });
  await parkMouse(t);
  await t.page.keyboard.press('?');
  const h = await waitForState(t, (x) => x.help && x.scroll['Keyboard shortcuts'], { timeout: T, message: 'help open' });
  const before = Object.fromEntries(Object.entries(h.scroll).map(([k, r]) => [k, r.scroll_y]));
  for (const dy of [100, -100, 1000, -1000]) {
    const { y } = await wheel(t, 'Keyboard shortcuts', dy);
    const after = await labState(t.page);
    const moved = Object.entries(after.scroll).filter(([k, r]) => before[k] !== undefined && r.scroll_y !== before[k]);
    assert(y === 0 && moved.length === 0 && after.help, `wheel ${dy} over the help: ${JSON.stringify(moved)}`);
  }
}, { viewport: { width: 1024, height: 640 } });

test('input: the wheel at devicePixelRatio 2, and in lines (deltaMode 1)', async (t) => {
  await openLab(t, '#stage=input');
  await checkWheel(t, 'Setup/body', { fy: 0.3, dpr: 2 });
  // A wheel that counts lines (Firefox's): 3 lines are one notch.
  const s = await waitSettled(t, { timeout: T });
  const r = region(s, 'Setup/body');
  await wheel(t, 'Setup/body', -100000, { dpr: 2 });
  await t.page.evaluate(({ x, y }) => {
    const canvas = document.getElementById('canvas');
    canvas.dispatchEvent(new WheelEvent('wheel', { deltaY: 3, deltaMode: 1, clientX: x, clientY: y, bubbles: true, cancelable: true }));
  }, { x: (r.x + r.w / 2) / 2, y: (r.y + r.h * 0.3) / 2 });
  const after = await waitSettled(t, { timeout: T });
  const notch = Math.min(5 * after.font_size, 0.67 * r.h);
  assert(Math.abs(after.scroll['Setup/body'].scroll_y - Math.min(r.max_y, notch)) <= 1.5,
    `3 lines scrolled ${after.scroll['Setup/body'].scroll_y}, expected a notch (${notch.toFixed(1)})`);
}, { viewport: { width: 1024, height: 640 }, deviceScaleFactor: 2 });
