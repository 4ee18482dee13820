// Idle tests: the page draws only when something changes, wakes for every kind of
// event by itself, and never asks WebGL for state while it draws.
//
// window.lab.state() draws a frame that is due before it answers (so it reports what
// is on screen); render.drawn_by_state counts those frames. "The page showed X by
// itself" is checked as: after waiting without calling state(), X is in state() and
// state() had nothing left to draw (drawn_by_state unchanged).
import { test, assert } from './lib/harness.mjs';
import {
  openLab, labState, waitForState, waitSettled, layoutRect, clickRect, parkMouse, note, findHeatmap, cellCenter, scrollSetupTo,
  waitTextFocus,
} from './lib/lab.mjs';

const T = 10000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Frames drawn over ms while nobody touches the page (state() is read only before and after). */
async function framesWhileIdle(t, ms) {
  const s0 = await waitSettled(t, { timeout: T });
  await sleep(ms);
  const s1 = await labState(t.page);
  return { frames: s1.render.drawn - s0.render.drawn, state: s1 };
}

/**
 * Do `action`, wait `ms` without reading state(), then check that `shown(state)` holds
 * and that the page had drawn it by itself (state() found no frame due).
 */
async function showsByItself(t, what, action, shown, { ms = 800 } = {}) {
  const before = (await waitSettled(t, { timeout: T })).render;
  await action();
  let s;
  for (let waited = 0; ; waited += ms) {
    await sleep(ms);
    s = await labState(t.page);
    if (shown(s) || waited > T) break;
  }
  assert(shown(s), `${what}: not shown (render ${JSON.stringify(s.render)})`);
  assert(s.render.drawn > before.drawn, `${what}: no frame was drawn`);
  assert(s.render.drawn_by_state === before.drawn_by_state,
    `${what}: the page did not draw it by itself (state() had to draw ${s.render.drawn_by_state - before.drawn_by_state} frames)`);
  return s;
}

test('idle: the page rests, and shows every change by itself', async (t) => {
  let s = await openLab(t, '#stage=input');
  await parkMouse(t);
  const idle = await framesWhileIdle(t, 2000);
  assert(idle.frames <= 2 && idle.state.render.resting, `idle for 2 s: ${idle.frames} frames, render ${JSON.stringify(idle.state.render)}`);
  note(t, `idle 2 s: ${idle.frames} frames`);

  // The pointer: a tooltip over a preset button (ImGui shows it after measuring it hidden).
  const preset = layoutRect(s, 'preset:Paper base');
  await showsByItself(t, 'tooltip on hover', () => t.page.mouse.move(preset.x + preset.w / 2, preset.y + preset.h / 2),
    (x) => Object.keys(x.scroll).some((k) => k.startsWith('Tooltip')));
  // Keys: the next stage.
  await parkMouse(t);
  await t.page.mouse.click(t.page.viewportSize().width / 2, 60);  // the stage view's header: focus, no widget
  await showsByItself(t, 'ArrowRight', () => t.page.keyboard.press('ArrowRight'), (x) => x.stage.id === 'project');
  // A popup: the experiments menu opens and its entries settle in place.
  s = await waitSettled(t, { timeout: T });
  await showsByItself(t, 'experiments menu', () => clickRect(t, layoutRect(s, 'menu:experiments')),
    (x) => !!x.layout['exp:scaling']);
  await t.page.mouse.click(t.page.viewportSize().width / 2, 60);  // a click elsewhere closes the menu
  await waitForState(t, (x) => !x.layout['exp:scaling'], { timeout: T, message: 'the menu closes' });
  // The URL hash edited from outside.
  await showsByItself(t, 'hash change', () => t.page.evaluate(() => { location.hash = '#d_model=16&heads=4&stage=scores'; }),
    (x) => x.config.d_model === 16 && x.config.heads === 4 && x.stage.id === 'scores');
  // A resize, and a devicePixelRatio change.
  await showsByItself(t, 'resize', () => t.page.setViewportSize({ width: 1024, height: 640 }),
    (x) => x.scroll.Setup && Math.abs(x.scroll.Setup.h + x.scroll.Setup.y - 640) <= 2);
  // (Chromium's emulation changes devicePixelRatio without the media-query event a
  // real screen change fires, so the window changes size with it: the resize carries it.)
  const cdp = await t.context.newCDPSession(t.page);
  await showsByItself(t, 'devicePixelRatio 2', () => cdp.send('Emulation.setDeviceMetricsOverride',
    { width: 1000, height: 640, deviceScaleFactor: 2, mobile: false }), (x) => x.ui_scale === 2);
  await cdp.send('Emulation.setDeviceMetricsOverride', { width: 1024, height: 640, deviceScaleFactor: 1, mobile: false });
  await waitForState(t, (x) => x.ui_scale === 1, { timeout: T, message: 'dpr back to 1' });
  // The Chinese font arrives asynchronously after a click on 中文.
  s = await waitSettled(t, { timeout: T });
  await showsByItself(t, 'Chinese font arrival', () => clickRect(t, layoutRect(s, 'lang:zh')),
    (x) => x.fonts.cjk === 'ready' && x.text_lang === 'zh');
  // Text without key presses (an input method's commit) in the tokens field.
  s = await scrollSetupTo(t, 'tokens', T);
  await clickRect(t, layoutRect(s, 'tokens'), { fx: 0.2 });
  await waitTextFocus(t, { timeout: T, message: 'tokens field active' });
  await showsByItself(t, 'IME text', () => t.page.keyboard.insertText('猫 狗'), (x) => x.fields.editing && x.fields.editing.text === '猫 狗');
  // A caret blinks while a field is active: a frame now and then, no more.
  const blinking = await framesWhileIdle(t, 2500);
  assert(blinking.frames >= 2 && blinking.frames <= 8, `a blinking caret over 2.5 s: ${blinking.frames} frames`);
  await t.page.keyboard.press('Enter');
  await parkMouse(t);
  await t.page.mouse.click(t.page.viewportSize().width / 2, 60);
  const after = await framesWhileIdle(t, 2000);
  assert(after.frames <= 2 && after.state.render.resting, `idle again: ${after.frames} frames in 2 s`);
  note(t, `caret blink: ${blinking.frames} frames in 2.5 s; idle again: ${after.frames} frames in 2 s`);
});

test('idle: the test API and a dropped file draw what they change', async (t) => {
  await openLab(t, '#stage=input');
  await parkMouse(t);
  await showsByItself(t, 'lab.wake', () => t.page.evaluate(() => window.lab.wake(3)), () => true);
  await showsByItself(t, 'config file through the bridge', () => t.page.evaluate(() => {
    const bytes = new TextEncoder().encode('[attention]\nd_model = 24\nnum_heads = 3\n');
    Module.ccall('lab_load_config_bytes', null, ['string', 'array', 'number', 'number'], ['drop.toml', bytes, bytes.length, bytes.length]);
  }), (x) => x.config.d_model === 24 && x.config.heads === 3);
});

// Every WebGL call that waits for the GPU process: getters, is*, readPixels, finish, ...
function countWebGLQueries() {
  const counts = (window.__glQueries = {});
  const pattern = /^(get|is|check|read|finish|clientWait)/;
  for (const proto of [WebGL2RenderingContext.prototype, WebGLRenderingContext.prototype]) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const d = Object.getOwnPropertyDescriptor(proto, name);
      if (!pattern.test(name) || !d || typeof d.value !== 'function') continue;
      const orig = d.value;
      proto[name] = function (...args) {
        counts[name] = (counts[name] || 0) + 1;
        return orig.apply(this, args);
      };
    }
  }
}

test('idle: frames never ask WebGL for state (no synchronous queries)', async (t) => {
  await t.page.addInitScript(countWebGLQueries);
  await openLab(t, '#d_model=512&heads=8&seq_len=10&batch=2&all=1&stage=softmax');
  let s = await waitSettled(t, { timeout: T });
  const q0 = await t.page.evaluate(() => ({ ...window.__glQueries }));
  const f0 = s.render.drawn;
  // Hover (derivations), a recompute with new textures, stage steps, all heads off and on,
  // the wheel, a text field, and the Chinese font's atlas upload.
  const hm = findHeatmap(s, 'weights');
  for (let i = 0; i < 10; i++) {
    const p = cellCenter(hm, i, Math.min(i, hm.cols - 1));
    await t.page.mouse.move(p.x, p.y);
    await waitForState(t, (x) => x.selection.hover, { timeout: T, message: `hover cell ${i}` });
  }
  await clickRect(t, layoutRect(s, 'preset:Tiny'));
  await waitForState(t, (x) => x.config.d_model === 8, { timeout: T, message: 'Tiny preset' });
  await t.page.mouse.move(640, 60);
  for (const key of ['ArrowLeft', 'ArrowLeft', 'a', 'ArrowRight']) await t.page.keyboard.press(key);
  await t.page.mouse.move(100, 300);
  await t.page.mouse.wheel(0, 300);
  s = await waitSettled(t, { timeout: T });
  await clickRect(t, layoutRect(s, 'lang:zh'));
  s = await waitForState(t, (x) => x.fonts.cjk === 'ready' && x.text_lang === 'zh', { timeout: T, message: 'Chinese' });
  await clickRect(t, layoutRect(s, 'tokens'), { fx: 0.2 });
  await t.page.keyboard.type('ab', { delay: 20 });
  s = await waitSettled(t, { timeout: T });
  const q1 = await t.page.evaluate(() => ({ ...window.__glQueries }));
  const added = Object.keys(q1).filter((k) => q1[k] !== (q0[k] || 0)).map((k) => `${k} x${q1[k] - (q0[k] || 0)}`);
  const frames = s.render.drawn - f0;
  assert(frames >= 30, `only ${frames} frames drawn`);
  assert(added.length === 0, `WebGL queries during ${frames} frames: ${added.join(', ')}`);
  note(t, `${frames} frames, 0 WebGL queries (at start-up: ${Object.entries(q0).map(([k, v]) => `${k} ${v}`).join(', ')})`);
});
