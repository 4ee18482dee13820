// Helpers specific to the Attention Lab page (see the web page contract).
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { assert } from './harness.mjs';
import { decodePng, imageStats } from './png.mjs';

export const READY_TIMEOUT = 60000;

/**
 * Navigate, wait until window.lab.ready === true and the first frames have settled
 * (windows and tables have their final places). Returns state().
 */
export async function openLab(t, rel = '') {
  await t.goto(rel);
  await t.waitFor(() => !!(window.lab && window.lab.ready === true), {
    timeout: READY_TIMEOUT,
    interval: 100,
    message: 'window.lab.ready === true',
  });
  return waitSettled(t, { timeout: READY_TIMEOUT, message: 'the page settles after loading' });
}

/** window.lab.state() as a plain object (JSON round trip, like the contract says). */
export async function labState(page) {
  return page.evaluate(() => JSON.parse(JSON.stringify(window.lab.state())));
}

/** Wait until predicate(state) holds (predicate runs in Node). Returns that state. */
export async function waitForState(t, predicate, { timeout = 2000, message = 'state condition' } = {}) {
  const deadline = Date.now() + timeout;
  let s;
  for (;;) {
    t.checkProblems();
    s = await labState(t.page);
    if (predicate(s)) return s;
    if (Date.now() >= deadline) {
      throw new Error(`${message} not met within ${timeout / 1000} s (last state: ${JSON.stringify(stateSummary(s)).slice(0, 600)})`);
    }
    await new Promise((r) => setTimeout(r, 30));
  }
}

/** The parts of state() worth printing in a failure message (stages and layout are long). */
export function stateSummary(s) {
  if (!s || typeof s !== 'object') return s;
  const { frame, stage, config, tokens, selection, errors, notes, help } = s;
  return { frame, stage: stage && stage.id, config, tokens, selection, errors, notes, help };
}

/** Click a neutral spot near the bottom right of the canvas to give it keyboard focus. */
export async function focusCanvas(t) {
  const vp = t.page.viewportSize();
  await t.page.mouse.click(vp.width - 12, vp.height - 12);
  const focused = await t.page.evaluate(() => document.activeElement && document.activeElement.id);
  assert(focused === 'canvas', `canvas did not take keyboard focus (active element: ${focused})`);
}

/** Canvas backing store and CSS size. */
export async function canvasSize(page) {
  return page.evaluate(() => {
    const c = document.getElementById('canvas');
    return {
      width: c.width,
      height: c.height,
      clientWidth: c.clientWidth,
      clientHeight: c.clientHeight,
      dpr: window.devicePixelRatio,
      innerWidth: window.innerWidth,
      innerHeight: window.innerHeight,
      labCanvas: window.labCanvas || null,
    };
  });
}

// ---------------------------------------------------------------------------
// Input helpers: real mouse/keyboard on the canvas, located through
// state().layout / state().heatmaps. Those are framebuffer pixels, which equal
// the CSS pixels page.mouse uses only at deviceScaleFactor 1 (the default).

/** Print an informational line in the runner's output (TAP-style comment). */
export function note(t, message) {
  console.log(`#   [${t.name}] ${message}`);
}

/** Centre of a {x,y,w,h} rect, or the point at fractions (fx, fy) of it. */
export function rectPoint(rect, fx = 0.5, fy = 0.5) {
  return { x: rect.x + rect.w * fx, y: rect.y + rect.h * fy };
}

/** state().layout[key], asserting that it exists. */
export function layoutRect(s, key) {
  const r = s.layout && s.layout[key];
  assert(r && r.w > 0 && r.h > 0, `state().layout has no rect "${key}" (keys: ${Object.keys(s.layout || {}).join(', ')})`);
  return r;
}

/** Mouse click at the centre (or fractions fx, fy) of a layout rect. */
export async function clickRect(t, rect, { fx = 0.5, fy = 0.5 } = {}) {
  const p = rectPoint(rect, fx, fy);
  await t.page.mouse.click(p.x, p.y);
  return p;
}

/** Park the mouse where it hovers nothing interesting (bottom right corner). */
export async function parkMouse(t) {
  const vp = t.page.viewportSize();
  await t.page.mouse.move(vp.width - 4, vp.height - 4);
}

/**
 * Let n more frames render, and return the state after them. The page draws only
 * when something changes (input, a resize, the test API), so this asks for the
 * frames (window.lab.wake) instead of waiting for a loop that may be resting.
 */
export async function waitFrames(t, n = 2, { timeout = 5000 } = {}) {
  const f0 = await t.page.evaluate((n) => { const f = window.lab.state().frame; window.lab.wake(n); return f; }, n);
  return waitForState(t, (s) => s.frame >= f0 + n, { timeout, message: `${n} more frames after frame ${f0}` });
}

/**
 * Wait until the page has finished reacting (no frame is due: ImGui has settled after
 * the last input and the app has nothing to show). Returns that state.
 */
export async function waitSettled(t, { timeout = 5000, message = 'the page settles' } = {}) {
  return waitForState(t, (s) => s.render && s.render.settled, { timeout, message });
}

/**
 * Click into a text field (at fraction fx of its rect: an InputInt group's
 * text field is its left part), select all, type text, optionally press Enter.
 * ImGui 1.86 sees everything that arrives between two frames at once, and the
 * app reads its shortcut keys with the previous frame's "a field has focus":
 * so let the click land (2 frames) before typing, and the Enter before any
 * following shortcut key.
 */
export async function typeInto(t, rect, text, { fx = 0.2, enter = true, delay = 10 } = {}) {
  await clickRect(t, rect, { fx });
  await waitFrames(t, 2);
  await t.page.keyboard.press('Control+A');
  await t.page.keyboard.type(String(text), { delay });
  if (enter) {
    await t.page.keyboard.press('Enter');
    await waitFrames(t, 2);
  }
}

/** Press a key, then wait until predicate(state) holds. Returns that state. */
export async function pressUntil(t, key, predicate, { timeout = 5000, message } = {}) {
  await t.page.keyboard.press(key);
  return waitForState(t, predicate, { timeout, message: message || `after pressing ${key}` });
}

/** The heatmap entry for a tensor (optionally with a given prefix), asserting it exists. */
export function findHeatmap(s, tensor, prefix) {
  const hm = (s.heatmaps || []).find((h) => h.tensor === tensor && (!prefix || JSON.stringify(h.prefix) === JSON.stringify(prefix)));
  assert(hm, `no heatmap "${tensor}"${prefix ? ` with prefix ${JSON.stringify(prefix)}` : ''} on screen (have: ${(s.heatmaps || []).map((h) => `${h.tensor}${JSON.stringify(h.prefix)}`).join(', ')})`);
  return hm;
}

/** Screen point at the centre of heatmap cell (row, col). */
export function cellCenter(hm, row, col) {
  assert(row >= 0 && row < hm.rows && col >= 0 && col < hm.cols, `cell (${row}, ${col}) outside ${hm.tensor} ${hm.rows}x${hm.cols}`);
  return { x: hm.x + (col + 0.5) * hm.cell_w, y: hm.y + (row + 0.5) * hm.cell_h };
}

/**
 * Move the mouse over cell (row, col) of a tensor's heatmap and wait until
 * state().selection.hover reports it. Returns the hover object.
 */
export async function hoverCell(t, tensor, row, col, { prefix, timeout = 5000 } = {}) {
  const hm = findHeatmap(await labState(t.page), tensor, prefix);
  const p = cellCenter(hm, row, col);
  await t.page.mouse.move(p.x, p.y);
  const s = await waitForState(t, (st) => {
    const h = st.selection && st.selection.hover;
    return !!h && h.tensor === tensor && Array.isArray(h.index) && h.index.length >= 2 &&
      h.index[h.index.length - 2] === row && h.index[h.index.length - 1] === col;
  }, { timeout, message: `hover over ${tensor} cell (${row}, ${col}) at (${p.x.toFixed(1)}, ${p.y.toFixed(1)})` });
  return s.selection.hover;
}

// A blank or single-colour canvas must fail a screenshot check (same bar as run.mjs).
export const MIN_LUMA_VARIANCE = 20;
export const MIN_DISTINCT_COLOURS = 16;

/** Save a screenshot as out/fileName and assert it is not blank. Returns its stats. */
export async function screenshotNotBlank(t, fileName) {
  const png = await t.page.screenshot({ path: path.join(t.out, fileName) });
  const st = imageStats(decodePng(png));
  assert(st.variance > MIN_LUMA_VARIANCE, `${fileName} looks blank: luma variance ${Math.max(0, st.variance).toFixed(1)}`);
  assert(st.distinctColours >= MIN_DISTINCT_COLOURS, `${fileName} has only ${st.distinctColours} distinct colours`);
  return st;
}

/**
 * Locate the '-' and '+' buttons of an ImGui InputInt group (layout "knob:*")
 * from pixels: the buttons are squares of side rect.h filled with the button
 * colour, sampled from a preset button. Returns {minus, plus} centre points.
 */
export async function findStepButtons(t, rect, { buttonSample } = {}) {
  await parkMouse(t); // a hovered button changes colour
  const s = await waitFrames(t, 2);
  const sample = buttonSample || layoutRect(s, 'preset:Tiny');
  const img = decodePng(await t.page.screenshot());
  const px = (x, y) => {
    const o = (Math.round(y) * img.width + Math.round(x)) * img.channels;
    return [img.data[o], img.data[o + 1], img.data[o + 2]];
  };
  // A few pixels inside the sample button's left edge, below its rounded corner.
  const ref = px(sample.x + 3, sample.y + sample.h * 0.25);
  const close = (c) => Math.abs(c[0] - ref[0]) + Math.abs(c[1] - ref[1]) + Math.abs(c[2] - ref[2]) <= 12;
  // Scan a row a quarter down the knob (above the '-'/'+' glyphs) for runs of button colour.
  const y = rect.y + rect.h * 0.25;
  const runs = [];
  let start = -1;
  for (let x = Math.floor(rect.x); x <= Math.ceil(rect.x + rect.w); x++) {
    const inRun = x < img.width && close(px(x, y));
    if (inRun && start < 0) start = x;
    if (!inRun && start >= 0) {
      runs.push([start, x - 1]);
      start = -1;
    }
  }
  const squares = runs.filter(([a, b]) => Math.abs(b - a + 1 - rect.h) <= 4);
  assert(squares.length === 2, `expected 2 square buttons (side ~${rect.h}) in ${JSON.stringify(rect)} with colour ${ref}, found runs ${JSON.stringify(runs)}`);
  const mid = ([a, b]) => ({ x: (a + b) / 2, y: rect.y + rect.h / 2 });
  return { minus: mid(squares[0]), plus: mid(squares[1]) };
}

// ---------------------------------------------------------------------------
// Helpers for the experiments and interop tests.

/** Wait for window.lab.ready again (after a reload or a navigation). Returns state(). */
export async function waitReady(t, { timeout = READY_TIMEOUT } = {}) {
  await t.waitFor(() => !!(window.lab && window.lab.ready === true), { timeout, interval: 100, message: 'window.lab.ready === true' });
  return labState(t.page);
}

/**
 * Hold a key (or a chord, e.g. ['Control', 'a']) down for at least `frames`
 * rendered frames, then release it. ImGui 1.86 reads key state once per frame:
 * a press and release that both land between two frames are never seen by
 * text fields (the app's own navigation keys are queued, these are not).
 */
export async function holdKey(t, keys, { frames = 1 } = {}) {
  const list = Array.isArray(keys) ? keys : [keys];
  for (const k of list) await t.page.keyboard.down(k);
  try {
    await waitFrames(t, frames);
  } finally {
    for (const k of list.slice().reverse()) await t.page.keyboard.up(k);
  }
  await waitFrames(t, 1);
}

/**
 * Click into a (multiline) text field, select all of it, and type `text`
 * line by line: each '\n' is an Enter held across a frame, so the characters
 * that follow it cannot overtake it inside one ImGui frame.
 */
export async function typeLines(t, rect, text, { fx = 0.5, fy = 0.3 } = {}) {
  await clickRect(t, rect, { fx, fy });
  await waitFrames(t, 2);
  await holdKey(t, ['Control', 'a']);
  const lines = String(text).split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]) {
      await t.page.keyboard.type(lines[i], { delay: 10 });
      await waitFrames(t, 2);
    }
    if (i + 1 < lines.length) await holdKey(t, 'Enter');
  }
}

/** Click a layout rect and return the browser download it starts (Playwright Download). */
export async function clickForDownload(t, rect, { timeout = 30000 } = {}) {
  const [download] = await Promise.all([
    t.page.waitForEvent('download', { timeout }),
    clickRect(t, rect),
  ]);
  return download;
}

/**
 * Drop a file on the canvas the way a browser does (a 'drop' DragEvent whose
 * dataTransfer holds one File). content: a string, or an array of byte values.
 */
export async function dropFile(t, name, content, { selector = '#canvas' } = {}) {
  const bytes = typeof content === 'string' ? null : Array.from(content);
  const dt = await t.page.evaluateHandle(({ name, text, bytes }) => {
    const data = new DataTransfer();
    data.items.add(new File([bytes ? new Uint8Array(bytes) : text], name));
    return data;
  }, { name, text: typeof content === 'string' ? content : null, bytes });
  await t.page.dispatchEvent(selector, 'dragover', { dataTransfer: dt });
  await t.page.dispatchEvent(selector, 'drop', { dataTransfer: dt });
  await dt.dispose();
}

/**
 * state().layout[key] once it has stayed the same over `frames` consecutive
 * rendered frames (asked for one by one: the page may be resting). ImGui hides a popup for its first frame after opening and
 * may move it (clamped to the screen) once its size is known: a rect read in
 * that first frame can point where the entry is not.
 */
export async function stableRect(t, key, { frames = 2, timeout = 5000 } = {}) {
  const deadline = Date.now() + timeout;
  let prev = null, prevFrame = -1, seen = 0;
  for (;;) {
    t.checkProblems();
    const s = await labState(t.page);
    const r = s.layout && s.layout[key];
    if (s.frame !== prevFrame) {
      seen = r && prev && JSON.stringify(r) === JSON.stringify(prev) ? seen + 1 : 0;
      prev = r || null;
      prevFrame = s.frame;
      if (seen >= frames && r.w > 0 && r.h > 0) return r;
    }
    await t.page.evaluate(() => window.lab.wake(1));  // the page may rest: ask for the next frame
    if (Date.now() >= deadline) throw new Error(`layout rect "${key}" not stable over ${frames} frames within ${timeout / 1000} s (last: ${JSON.stringify(r)})`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

/** Open the Experiments menu by mouse and click the entry exp:<key> ('none' = back to the stepper). */
export async function pickExperiment(t, key, { timeout = 5000 } = {}) {
  const s0 = await labState(t.page);
  await clickRect(t, layoutRect(s0, 'menu:experiments'));
  await clickRect(t, await stableRect(t, `exp:${key}`, { timeout }));
}

/** Open the page in a browser that offers no WebGL 2 context; returns the error overlay's text. */
export async function openWithoutWebGL2(t, rel = '') {
  await t.page.addInitScript(() => {
    const orig = HTMLCanvasElement.prototype.getContext;
    HTMLCanvasElement.prototype.getContext = function (type, ...rest) {
      if (String(type).toLowerCase() === 'webgl2') return null;
      return orig.call(this, type, ...rest);
    };
  });
  await t.goto(rel);
  const box = t.page.locator('#lab-error');
  await box.waitFor({ state: 'visible', timeout: 10000 });
  return box.innerText();
}

/** Scrolls the setup panel with the mouse wheel (as a person would) until the layout rect
 *  `key` lies inside its visible part; returns the state then. */
export async function scrollSetupTo(t, key, timeout = 10000) {
  const inside = (r, w) => r && r.x >= w.x - 0.5 && r.y >= w.y - 0.5 && r.x + r.w <= w.x + w.w + 0.5 && r.y + r.h <= w.y + w.h + 0.5;
  for (let i = 0; i < 30; i++) {
    const s = await waitSettled(t, { timeout });
    const win = s.scroll['Setup/body'], r = s.layout[key];
    if (!win || inside(r, win)) return s;
    await t.page.mouse.move(win.x + win.w / 2, win.y + win.h / 2);
    await t.page.mouse.wheel(0, r && r.y < win.y ? -100 : 100);
  }
  throw new Error(`${key} never scrolled into the setup panel`);
}

/** Waits until ImGui edits a field and the page's hidden textarea has the focus: an input
 *  method's commit (keyboard.insertText) reaches the field only through that textarea,
 *  which takes the focus a couple of frames after the click (web/lab_bridge.js). */
export async function waitTextFocus(t, { timeout = 10000, message = 'a field edited with the text input focused' } = {}) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const s = await labState(t.page);
    const focused = await t.page.evaluate(() => document.activeElement && document.activeElement.id);
    if (s.fields.editing && focused === 'lab-text-input') return s;
    if (Date.now() >= deadline) {
      throw new Error(`${message} not met within ${timeout / 1000} s (editing ${JSON.stringify(s.fields.editing)}, focus on '${focused}')`);
    }
    t.checkProblems();
    await new Promise((r) => setTimeout(r, 30));
  }
}

/** Open the page at `hash` in `lang`; for 中文, wait until its font is there and the texts are Chinese. */
export async function openIn(t, lang, hash, timeout = 30000) {
  await openLab(t, `#${hash}${hash ? '&' : ''}lang=${lang}`);
  if (lang === 'zh') await waitForState(t, (x) => x.text_lang === 'zh' && x.fonts.cjk === 'ready', { timeout, message: 'Chinese interface' });
  return waitSettled(t, { timeout });
}

/** The page settled, with no text cut: state().clipped lists every text wider than its space. */
export async function assertNothingClipped(t, where, timeout = 30000) {
  const s = await waitSettled(t, { timeout, message: `the page settles (${where})` });
  assert(Array.isArray(s.clipped), 'state().clipped is missing');
  assert(s.clipped.length === 0, `${where}: ${s.clipped.length} texts cut: ${JSON.stringify(s.clipped.slice(0, 5))}`);
  return s;
}

/**
 * The Train view's two downloads (checkpoint .tar, PyTorch script .py) saved under t.out/dirName,
 * then the script run with Debian's python3-torch; asserts it exits 0 saying PyTorch agrees.
 * Returns the script's name and its last line.
 */
export async function trainExportsAgree(t, s, dirName) {
  const dir = path.join(t.out, dirName);
  await mkdir(dir, { recursive: true });
  const tarDl = await clickForDownload(t, layoutRect(s, 'export:train_checkpoint'));
  await tarDl.saveAs(path.join(dir, tarDl.suggestedFilename()));
  const pyDl = await clickForDownload(t, layoutRect(s, 'export:train_script'));
  const pyName = pyDl.suggestedFilename();
  await pyDl.saveAs(path.join(dir, pyName));
  const py = await new Promise((resolve) => {
    execFile('/usr/bin/python3', [path.join(dir, pyName)], { timeout: 180000, maxBuffer: 16 << 20, cwd: dir }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
  });
  assert(py.code === 0 && /PyTorch agrees with the lab/.test(py.stdout), `${pyName} exited ${py.code}:\n${py.stdout}\n${py.stderr}`);
  return { pyName, last: py.stdout.trim().split('\n').at(-1) };
}
