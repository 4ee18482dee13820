// Touch tests (issue #28 item 2): the page on a tablet and a phone, driven by real
// touch events (CDP Input.dispatchTouchEvent in a touch-emulating context): a drag
// scrolls the panel under the finger and keeps going after it lifts, a tap is a
// click that leaves no hover behind, a long-press shows a heatmap cell's
// derivation, a pinch changes the UI scale within its range, and a tap on a text
// field focuses the page's text input (the on-screen keyboard) so inserted text,
// English and Chinese, arrives. Targets come from state() rects, not fixed pixels:
// the phone layout is another change's.
import { test, assert } from './lib/harness.mjs';
import { openLab, labState, waitForState, waitSettled, layoutRect, rectPoint, findHeatmap, cellCenter,
         screenshotNotBlank, note } from './lib/lab.mjs';

const T = 10000;
const SIZES = [
  { name: 'tablet', viewport: { width: 1024, height: 768 }, deviceScaleFactor: 2 },
  { name: 'phone', viewport: { width: 390, height: 844 }, deviceScaleFactor: 3 },
];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Touch events carry the time a device would stamp on them: this machine's page may
// take a few hundred ms to handle each one (software GL), and the gestures are told
// apart by the events' times (a flick's speed, a hold's length), as on a phone.
// cdp.clock: the stamp of the next event (ms since the epoch); later() moves it on.
async function touchSession(t) {
  const cdp = await t.page.context().newCDPSession(t.page);
  cdp.clock = Date.now();
  return cdp;
}
function later(cdp, ms) { cdp.clock = Math.max(cdp.clock + ms, ms >= 100 ? Date.now() : 0); }
function points(...ps) {
  return ps.map((p, i) => ({ x: p.x, y: p.y, id: i, radiusX: 4, radiusY: 4, force: 1 }));
}
async function send(cdp, type, ps) {
  await cdp.send('Input.dispatchTouchEvent', { type, touchPoints: points(...ps), timestamp: cdp.clock / 1000 });
}
async function touchStart(cdp, ...ps) { cdp.clock = Math.max(cdp.clock, Date.now()); await send(cdp, 'touchStart', ps); }
async function touchMove(cdp, ...ps) { later(cdp, 16); await send(cdp, 'touchMove', ps); }
async function touchEnd(cdp) { later(cdp, 16); await send(cdp, 'touchEnd', []); }

async function tap(cdp, p) {
  await touchStart(cdp, p);
  await touchEnd(cdp);
}

// A long-press: the finger rests (really, so the page shows the hold by itself) and lifts.
async function longPress(t, cdp, p, check) {
  await touchStart(cdp, p);
  await sleep(700);
  later(cdp, 700);
  const held = await check();
  await touchEnd(cdp);
  return held;
}

// A slow drag by dy CSS px from p, resting before the finger lifts: no momentum.
async function slowDrag(t, cdp, p, dy) {
  await touchStart(cdp, p);
  for (let i = 1; i <= 10; i++) {
    later(cdp, 40);
    await touchMove(cdp, { x: p.x, y: p.y + (dy * i) / 10 });
  }
  later(cdp, 300);
  await touchEnd(cdp);
}

// A state() rect (framebuffer px) in CSS px.
function css(r, dpr) { return { x: r.x / dpr, y: r.y / dpr, w: r.w / dpr, h: r.h / dpr }; }
function onScreen(p, vp) { return p.x > 2 && p.y > 2 && p.x < vp.width - 2 && p.y < vp.height - 2; }

// The panel a vertical drag should scroll: Explain when its text is longer than the
// panel, else the scroll region with the most to scroll (the tablet's Explain fits).
function scrollRegion(s, dpr) {
  const regions = Object.entries(s.scroll).filter(([, r]) => r.max_y >= 60 * dpr);
  assert(regions.length > 0, `no scroll region with room to scroll: ${JSON.stringify(s.scroll)}`);
  const explain = regions.find(([id]) => id === 'Explain');
  return explain || regions.sort((a, b) => b[1].max_y - a[1].max_y)[0];
}

// A cell of a heatmap whose centre is on screen and inside the heatmap's window
// ("<panel>/<tensor>", when drawn), with its CSS point.
function visibleCell(s, dpr, vp) {
  const inside = (c, r) => !r || (c.x > r.x && c.x < r.x + r.w && c.y > r.y && c.y < r.y + r.h);
  for (const hm of s.heatmaps) {
    const win = Object.entries(s.scroll).find(([k]) => k.endsWith(`/${hm.tensor}`));
    for (let row = 0; row < hm.rows; row++) {
      for (let col = 0; col < hm.cols; col++) {
        const c = cellCenter(hm, row, col);
        const p = { x: c.x / dpr, y: c.y / dpr };
        if (onScreen(p, vp) && inside(c, win && win[1]) && hm.cell_w / dpr >= 6) return { hm, row, col, p };
      }
    }
  }
  throw new Error(`no heatmap cell on screen (heatmaps: ${s.heatmaps.map((h) => `${h.tensor}@${h.x},${h.y}`).join(' ')})`);
}

// A visible cell; if every heatmap is below the fold, slow drags on the panel that
// holds them (a heatmap's own child window is "<panel>/<tensor>" when drawn; else
// the Stage panel) bring the first one up.
async function revealCell(t, cdp, s, dpr, vp) {
  for (let attempt = 0; ; attempt++) {
    try {
      return visibleCell(s, dpr, vp);
    } catch (e) {
      if (attempt >= 4) throw e;
    }
    const hm = s.heatmaps[0];
    assert(hm, 'no heatmap at all');
    const child = Object.keys(s.scroll).find((k) => k.endsWith(`/${hm.tensor}`));
    const id = child ? child.slice(0, child.lastIndexOf('/')) : 'Stage';
    const r = id && s.scroll[id];
    assert(r && r.max_y > r.scroll_y, `no scroll region can bring the heatmap ${hm.tensor} up (${JSON.stringify(s.scroll)})`);
    const box = css(r, dpr);
    const dy = Math.min(hm.y / dpr - (box.y + box.h * 0.4), (r.max_y - r.scroll_y) / dpr, box.h * 0.7);
    note(t, `heatmaps below the fold: a slow drag of ${dy.toFixed(0)} CSS px on ${id}`);
    await slowDrag(t, cdp, rectPoint(box, 0.5, 0.8), -dy);
    s = await waitSettled(t, { timeout: T });
    assert(s.touch.last === 'scroll', `a slow drag ended as a ${s.touch.last} (momentum after a resting finger?)`);
    assert(s.scroll[id].scroll_y > r.scroll_y, `the slow drag did not scroll ${id}`);
  }
}

// On a phone's one-column layout the panel is one of the tabs: tap it (a tap, as a finger
// does) and return the state that shows it; elsewhere the state as it is.
async function showTab(t, cdp, s, tab, dpr) {
  if (!s.narrow.on) return s;
  await tap(cdp, rectPoint(css(layoutRect(s, `ntab:${tab}`), dpr)));
  await waitForState(t, (x) => x.narrow.tab === tab, { timeout: T, message: `a tap on the ${tab} tab shows it` });
  return waitSettled(t, { timeout: T });
}

function hoverAt(s, tensor, row, col) {
  const h = s.selection && s.selection.hover;
  return !!h && h.tensor === tensor && h.index[h.index.length - 2] === row && h.index[h.index.length - 1] === col;
}

for (const size of SIZES) {
  const opts = { viewport: size.viewport, deviceScaleFactor: size.deviceScaleFactor, hasTouch: true, isMobile: true };
  const dpr = size.deviceScaleFactor;

  test(`touch (${size.name}): a vertical drag scrolls the panel under the finger, with momentum`, async (t) => {
    const cdp = await touchSession(t);
    const s0 = await showTab(t, cdp, await openLab(t, '#stage=softmax'), 'explain', dpr);
    const [id, r0] = scrollRegion(s0, dpr);
    const box = css(r0, dpr);
    // A quick flick up over a third of what the region can scroll (at most 150 CSS px).
    const travel = Math.min(150, (r0.max_y / dpr) * 0.3);
    const from = rectPoint(box, 0.5, 0.6);
    await touchStart(cdp, from);
    const steps = 8;
    for (let i = 1; i <= steps; i++) {
      await touchMove(cdp, { x: from.x, y: from.y - (travel * i) / steps });
    }
    await touchEnd(cdp);  // at once: a finger that rests before it lifts stops the panel
    const lifted = await labState(t.page);
    const during = lifted.scroll[id].scroll_y, atLift = during;
    await sleep(120);
    const s1 = await labState(t.page);
    const after = s1.scroll[id].scroll_y;
    note(t, `${id}: max ${r0.max_y}, drag ${travel.toFixed(0)} CSS px: scroll ${during} during, ${atLift} at lift, ${after} 120 ms later (${s1.touch.gesture})`);
    assert(during >= travel * dpr * 0.5, `${id} scrolled ${during} px during a ${travel * dpr} px drag`);
    assert(after > atLift, `${id} did not keep scrolling after the finger lifted: ${atLift} -> ${after}`);
    const s2 = await waitForState(t, (x) => x.touch.gesture === 'none', { timeout: T, message: 'the momentum ends' });
    const stopped = s2.scroll[id].scroll_y;
    await sleep(300);
    const s3 = await labState(t.page);
    note(t, `momentum ended at ${stopped} (last gesture ${s2.touch.last}), ${s3.scroll[id].scroll_y} 300 ms later`);
    assert(stopped >= after && stopped <= r0.max_y, `scroll after the momentum ${stopped} (was ${after}, max ${r0.max_y})`);
    assert(s3.scroll[id].scroll_y === stopped, `${id} still moves after the momentum ended: ${stopped} -> ${s3.scroll[id].scroll_y}`);
    assert(s2.touch.last === 'fling', `the drag's last gesture is ${s2.touch.last}, not fling`);
    assert(s3.selection.hover === null && !s3.tooltip, `a hover after the drag: ${JSON.stringify(s3.selection.hover)} / ${s3.tooltip}`);
    assert(s3.stage.id === 'softmax', `the drag changed the stage to ${s3.stage.id}`);
    await screenshotNotBlank(t, `touch-${size.name}-scrolled.png`);
  }, opts);

  test(`touch (${size.name}): a tap on a chip selects its stage and leaves no hover; a long-press shows a cell's derivation`, async (t) => {
    const s0 = await openLab(t, '#stage=input');
    const chip = css(layoutRect(s0, 'chip:scores'), dpr);
    const cdp = await touchSession(t);
    await tap(cdp, rectPoint(chip));
    const s1 = await waitForState(t, (x) => x.stage.id === 'scores', { timeout: T, message: 'a tap on chip:scores selects it' });
    const s2 = await waitSettled(t, { timeout: T });
    note(t, `after the tap: stage ${s1.stage.id}, hover ${JSON.stringify(s2.selection.hover)}, tooltip "${s2.tooltip}", last ${s2.touch.last}`);
    assert(s2.touch.last === 'tap', `the chip's touch was a ${s2.touch.last}`);
    assert(s2.selection.hover === null, `a hover stays after the tap: ${JSON.stringify(s2.selection.hover)}`);
    assert(!s2.tooltip, `a tooltip stays after the tap: ${s2.tooltip}`);

    // A long-press on a cell: its derivation shows, and stays once the finger lifts.
    const cell = await revealCell(t, cdp, s2, dpr, size.viewport);
    const held = await longPress(t, cdp, cell.p, () => waitForState(t, (x) => hoverAt(x, cell.hm.tensor, cell.row, cell.col),
      { timeout: T, message: `a long-press on ${cell.hm.tensor} (${cell.row}, ${cell.col}) hovers it` }));
    const s3 = await waitSettled(t, { timeout: T });
    assert(s3.touch.last === 'hold', `the long-press was a ${s3.touch.last}`);
    note(t, `long-press on ${cell.hm.tensor} (${cell.row}, ${cell.col}): "${(s3.selection.hover && s3.selection.hover.text || '').slice(0, 80)}", tooltip "${s3.tooltip}"`);
    assert(hoverAt(s3, cell.hm.tensor, cell.row, cell.col), `the derivation went with the finger: ${JSON.stringify(s3.selection.hover)}`);
    assert(s3.selection.hover.text && s3.selection.hover.text.length > 10, `no derivation text: ${JSON.stringify(s3.selection.hover)}`);
    assert(s3.stage.id === 'scores', `the long-press changed the stage to ${s3.stage.id}`);
    await screenshotNotBlank(t, `touch-${size.name}-longpress.png`);

    // A tap on the same cell: a click there, and its hover goes afterwards.
    await tap(cdp, cell.p);
    await sleep(100);
    const s4 = await waitSettled(t, { timeout: T });
    assert(s4.touch.last === 'tap' && s4.selection.hover === null, `after a tap on the cell: ${s4.touch.last}, hover ${JSON.stringify(s4.selection.hover)}`);
  }, opts);

  test(`touch (${size.name}): pinch out raises the UI scale, pinch in lowers it, within its range`, async (t) => {
    const s0 = await openLab(t);
    assert(s0.ui_scale === dpr && s0.touch.zoom === 1, `ui_scale ${s0.ui_scale}, zoom ${s0.touch.zoom} before a pinch`);
    const cdp = await touchSession(t);
    const c = { x: size.viewport.width / 2, y: size.viewport.height / 2 };
    const pinch = async (d0, d1) => {
      const at = (d) => [{ x: c.x - d / 2, y: c.y }, { x: c.x + d / 2, y: c.y }];
      await touchStart(cdp, ...at(d0));
      for (let i = 1; i <= 10; i++) {
        await touchMove(cdp, ...at(d0 + ((d1 - d0) * i) / 10));
      }
      await touchEnd(cdp);
      return waitSettled(t, { timeout: T });
    };
    const wider = await pinch(120, 144);  // x1.2
    note(t, `pinch out x1.2: ui_scale ${s0.ui_scale} -> ${wider.ui_scale}, font ${s0.font_size} -> ${wider.font_size} px`);
    assert(Math.abs(wider.ui_scale - dpr * 1.2) < 0.01, `a x1.2 pinch set ui_scale ${wider.ui_scale}, not ${dpr * 1.2}`);
    assert(wider.font_size > s0.font_size * 1.15, `the font did not follow: ${s0.font_size} -> ${wider.font_size}`);
    const chip0 = layoutRect(s0, 'chip:input'), chip1 = layoutRect(wider, 'chip:input');
    assert(chip1.h > chip0.h * 1.15, `the layout did not follow: chip:input ${chip0.h} -> ${chip1.h} px high`);
    await screenshotNotBlank(t, `touch-${size.name}-pinched-out.png`);
    assert(wider.clipped.length === 0, `after a x1.2 pinch texts are cut: ${JSON.stringify(wider.clipped.slice(0, 4))}`);
    const widest = await pinch(100, 300);  // x3: held at the top of the range
    await screenshotNotBlank(t, `touch-${size.name}-pinched-widest.png`);
    assert(widest.clipped.length === 0, `at the largest zoom texts are cut: ${JSON.stringify(widest.clipped.slice(0, 4))}`);
    // The zoom leaves the screen 320 CSS px of width (the narrowest layout that cuts nothing), up to x1.6.
    const room = Math.min(1.6, Math.floor(size.viewport.width / 320 * 10 + 1e-6) / 10);
    assert(Math.abs(widest.touch.zoom_max - room) < 1e-6, `zoom_max ${widest.touch.zoom_max} at ${size.viewport.width} CSS px, not ${room}`);
    note(t, `largest zoom x${widest.touch.zoom_max}: ${(size.viewport.width / widest.touch.zoom_max).toFixed(0)} zoomed CSS px wide, narrow layout ${widest.narrow.on}`);
    assert(Math.abs(widest.ui_scale - dpr * widest.touch.zoom_max) < 0.01, `pinch out x3: ui_scale ${widest.ui_scale}, range up to ${dpr * widest.touch.zoom_max}`);
    const narrower = await pinch(200, 150);
    note(t, `pinch out x3: ui_scale ${widest.ui_scale}; pinch in x0.75: ${narrower.ui_scale}`);
    assert(narrower.ui_scale < widest.ui_scale - 0.1, `pinch in: ui_scale ${widest.ui_scale} -> ${narrower.ui_scale}`);
    const narrowest = await pinch(300, 60);  // x0.2: held at the bottom
    assert(Math.abs(narrowest.ui_scale - dpr * narrowest.touch.zoom_min) < 0.01, `pinch in x0.2: ui_scale ${narrowest.ui_scale}, range down to ${dpr * narrowest.touch.zoom_min}`);
    assert(narrowest.stage.id === s0.stage.id && narrowest.touch.last === 'pinch', `pinches changed the stage or were not pinches: ${narrowest.stage.id}, ${narrowest.touch.last}`);
  }, opts);

  test(`touch (${size.name}): a tap on the tokens field opens the text input; inserted English and Chinese arrive`, async (t) => {
    const cdp = await touchSession(t);
    let s0 = await showTab(t, cdp, await openLab(t), 'setup', dpr);
    // Below the fold (the mask's window and prefix knobs come first): a finger drags the panel up.
    for (let i = 0; i < 5; i++) {
      const win = s0.scroll['Setup/body'], r = s0.layout.tokens;
      if (!win || (r && r.y >= win.y && r.y + r.h <= win.y + win.h)) break;
      const box = css(win, dpr);
      const dy = r ? Math.min((r.y + r.h - (win.y + win.h)) / dpr + 20, box.h * 0.6) : box.h * 0.5;
      note(t, `the tokens field below the fold: a slow drag of ${dy.toFixed(0)} CSS px on Setup/body`);
      await slowDrag(t, cdp, rectPoint(box, 0.5, 0.8), -dy);
      s0 = await waitSettled(t, { timeout: T });
    }
    const field = css(layoutRect(s0, 'tokens'), dpr);
    await tap(cdp, rectPoint(field, 0.2));
    // The focus must have moved inside the touch's handler (a phone opens its keyboard only then).
    const focused = await t.page.evaluate(() => document.activeElement && document.activeElement.id);
    assert(focused === 'lab-text-input', `after the tap the focus is on "${focused}", not the text input`);
    await waitForState(t, (x) => x.fields.editing !== null, { timeout: T, message: 'the tokens field is edited' });
    for (const text of [' and the dog ran', ' 小猫追着球跑']) {
      await cdp.send('Input.insertText', { text });
      await waitForState(t, (x) => x.fields.editing && x.fields.editing.text.includes(text),
        { timeout: T, message: `"${text}" arrives in the field` });
    }
    const s1 = await labState(t.page);
    note(t, `field: "${s1.fields.editing.text}"`);
    assert(s1.fields.editing.text === s0.fields.tokens + ' and the dog ran 小猫追着球跑',
      `the field holds "${s1.fields.editing.text}" after inserting into "${s0.fields.tokens}"`);
    await t.page.keyboard.press('Enter');
    const s2 = await waitForState(t, (x) => x.fields.tokens.includes('小猫追着球跑') && x.fields.tokens.includes('the dog ran') && x.fonts.cjk === 'ready',
      { timeout: 30000, message: 'the tokens take the typed text' });
    await waitSettled(t, { timeout: T });
    note(t, `tokens: "${s2.fields.tokens}" (${s2.tokens.length} tokens)`);
    await screenshotNotBlank(t, `touch-${size.name}-typed.png`);
    // A tap elsewhere (a chip) gives the focus back to the canvas: the keyboard closes.
    await tap(cdp, rectPoint(css(layoutRect(s2, 'chip:scores'), dpr)));
    await waitForState(t, (x) => x.stage.id === 'scores', { timeout: T, message: 'the chip tap after typing' });
    const back = await t.page.evaluate(() => document.activeElement && document.activeElement.id);
    assert(back === 'canvas', `after a tap on a chip the focus is on "${back}"`);
  }, opts);
}

// The rule for widgets that drag (src/platform/touch_input.h): a sideways drag that
// starts on a slider drags it as the mouse would; an upward drag there does not.
// The tablet only: the phone layout is another change's.
test('touch (tablet): a sideways drag on the head slider moves it; an upward one does not', async (t) => {
  const dpr = 2;
  const s0 = await openLab(t, '#stage=scores');
  assert(s0.selection.head === 0 && s0.config.heads === 2, `head ${s0.selection.head} of ${s0.config.heads}`);
  const r = css(layoutRect(s0, 'slider:head'), dpr);
  const frameW = (s0.font_size * 6) / dpr;  // the slider's frame; its label follows
  const y = r.y + r.h / 2;
  const cdp = await touchSession(t);
  await touchStart(cdp, { x: r.x + frameW * 0.5, y });
  for (let i = 1; i <= 6; i++) await touchMove(cdp, { x: r.x + frameW * 0.5, y: y - 12 * i });
  await touchEnd(cdp);
  const up = await waitSettled(t, { timeout: T });
  note(t, `upward drag on the slider: head ${up.selection.head}, ${up.touch.last}`);
  assert(up.selection.head === 0 && up.touch.last !== 'drag', `an upward drag moved the slider: head ${up.selection.head}, ${up.touch.last}`);
  await touchStart(cdp, { x: r.x + frameW * 0.15, y });
  for (let i = 1; i <= 8; i++) await touchMove(cdp, { x: r.x + frameW * (0.15 + 0.1 * i), y });
  await touchEnd(cdp);
  const s1 = await waitForState(t, (x) => x.touch.last === 'drag' && x.render.settled, { timeout: T, message: 'the sideways drag ends' });
  note(t, `sideways drag on the slider: head ${s1.selection.head}, hover ${JSON.stringify(s1.selection.hover)}`);
  assert(s1.selection.head === 1, `a sideways drag over the head slider left head ${s1.selection.head}`);
  assert(s1.stage.id === 'scores' && s1.selection.hover === null, `after the drag: stage ${s1.stage.id}, hover ${JSON.stringify(s1.selection.hover)}`);
}, { viewport: { width: 1024, height: 768 }, deviceScaleFactor: 2, hasTouch: true, isMobile: true });
