#!/usr/bin/env node
// Browser tests for the Attention Lab web page (headless Chromium via playwright-core).
//
//   node run.mjs --url http://127.0.0.1:8000/ --out DIR [--grep REGEX]
//   (or LAB_URL / LAB_OUT / LAB_GREP; CHROMIUM overrides /usr/bin/chromium)
//
// More tests: add a file tests/browser/<topic>.test.mjs that does
//   import { test, assert } from './lib/harness.mjs';
// run.mjs imports every *.test.mjs next to it after the core tests below.
import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { test, assert, runTests } from './lib/harness.mjs';
import { decodePng, imageStats } from './lib/png.mjs';
import { openLab, labState, waitForState, focusCanvas, canvasSize, openWithoutWebGL2 } from './lib/lab.mjs';

export { test, assert };

const here = path.dirname(fileURLToPath(import.meta.url));

// A blank or single-colour canvas must fail the screenshot test.
const MIN_LUMA_VARIANCE = 20;
const MIN_DISTINCT_COLOURS = 16;

// ---------------------------------------------------------------------------
// Core tests
// ---------------------------------------------------------------------------

test('loads', async (t) => {
  const s = await openLab(t);
  assert(s && typeof s === 'object', 'state() did not return an object');
  assert(s.stage && Number.isInteger(s.stage.index), `state().stage.index missing: ${JSON.stringify(s.stage)}`);
  assert(Array.isArray(s.stages) && s.stages.length > 0, 'state().stages is not a non-empty array');
  assert(s.stage.index >= 0 && s.stage.index < s.stages.length, `stage.index ${s.stage.index} out of range`);
  assert(await t.page.locator('#loader').isHidden(), 'loader overlay still visible after ready');
  assert(await t.page.locator('#lab-error').isHidden(), 'error overlay visible after ready');
  const layout = await t.page.evaluate(() => ({
    scrollW: document.documentElement.scrollWidth,
    scrollH: document.documentElement.scrollHeight,
    w: window.innerWidth,
    h: window.innerHeight,
    active: document.activeElement && document.activeElement.id,
  }));
  assert(layout.scrollW <= layout.w && layout.scrollH <= layout.h, `page scrolls: ${JSON.stringify(layout)}`);
  assert(layout.active === 'canvas', `canvas not focused on load (active: ${layout.active})`);
});

test('screenshot not blank', async (t) => {
  await openLab(t);
  // Let a few more frames render.
  await t.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  assert(await t.page.locator('#loader').isHidden(), 'loader overlay still visible');
  const png = await t.page.screenshot({ path: path.join(t.out, 'home.png') });
  const img = decodePng(png);
  const st = imageStats(img);
  const vp = t.page.viewportSize();
  assert(img.width === vp.width && img.height === vp.height, `screenshot is ${img.width}x${img.height}, expected ${vp.width}x${vp.height}`);
  assert(st.variance > MIN_LUMA_VARIANCE, `screenshot looks blank: luma variance ${Math.max(0, st.variance).toFixed(1)} <= ${MIN_LUMA_VARIANCE}`);
  assert(st.distinctColours >= MIN_DISTINCT_COLOURS, `screenshot has only ${st.distinctColours} distinct colours (< ${MIN_DISTINCT_COLOURS})`);
});

test('keyboard changes stage', async (t) => {
  const s0 = await openLab(t);
  assert(s0.stages.length >= 2, `need at least 2 stages to test the keyboard, got ${s0.stages.length}`);
  await focusCanvas(t);
  const start = (await labState(t.page)).stage.index;
  // Step forward then back; from the last stage, step back then forward.
  const [first, second, delta] = start < s0.stages.length - 1
    ? ['ArrowRight', 'ArrowLeft', +1]
    : ['ArrowLeft', 'ArrowRight', -1];
  await t.page.keyboard.press(first);
  await waitForState(t, (s) => s.stage.index === start + delta, { timeout: 2000, message: `${first}: stage.index ${start} -> ${start + delta}` });
  await t.page.keyboard.press(second);
  await waitForState(t, (s) => s.stage.index === start, { timeout: 2000, message: `${second}: stage.index back to ${start}` });
});

test('hidpi backing store', async (t) => {
  await openLab(t);
  const check = async (label) => {
    try {
      await t.waitFor(() => {
        const c = document.getElementById('canvas');
        return c.clientWidth > 0 && c.width === Math.round(c.clientWidth * 2) && c.height === Math.round(c.clientHeight * 2);
      }, { timeout: 3000, message: label });
    } catch (e) {
      throw new Error(`${e.message}: ${JSON.stringify(await canvasSize(t.page))}`);
    }
  };
  await check('canvas backing store = 2 x CSS size');
  const sz = await canvasSize(t.page);
  assert(sz.dpr === 2, `devicePixelRatio is ${sz.dpr}`);
  assert(sz.clientWidth === sz.innerWidth && sz.clientHeight === sz.innerHeight, `canvas CSS size ${sz.clientWidth}x${sz.clientHeight} != window ${sz.innerWidth}x${sz.innerHeight}`);
  assert(sz.labCanvas && sz.labCanvas.dpr === 2 && sz.labCanvas.cssWidth === sz.clientWidth, `window.labCanvas wrong: ${JSON.stringify(sz.labCanvas)}`);
  // Follows a window resize.
  await t.page.setViewportSize({ width: 1000, height: 700 });
  await check('backing store follows a resize to 1000x700');
  await t.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await check('backing store still 2 x CSS size after a few frames');
  const sz2 = await canvasSize(t.page);
  assert(sz2.width === 2000 && sz2.height === 1400, `after resize: ${JSON.stringify(sz2)}`);
}, { deviceScaleFactor: 2 });

test('missing WebGL2 shows a readable message', async (t) => {
  const text = await openWithoutWebGL2(t);
  assert(/WebGL\s?2/i.test(text), `message does not mention WebGL 2: ${text}`);
  assert(/hardware acceleration/i.test(text), `message does not explain hardware acceleration: ${text}`);
  assert(await t.page.locator('#loader').isHidden(), 'loader still visible');
  const fetchedApp = t.requests.filter((u) => /attention_lab\.(js|wasm)(\?|$)/.test(u));
  assert(fetchedApp.length === 0, `app files were loaded without WebGL2: ${fetchedApp.join(', ')}`);
}, { allowConsoleErrors: true, allowFailedRequests: true });

test('missing wasm shows an error overlay', async (t) => {
  await t.page.route('**/attention_lab.wasm', (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' }));
  await t.goto('#stage=2');
  const box = t.page.locator('#lab-error');
  await box.waitFor({ state: 'visible', timeout: 10000 });
  const text = await box.innerText();
  assert(/404/.test(text), `error overlay does not show the HTTP status: ${text}`);
  const link = t.page.locator('#lab-error a', { hasText: 'Reload with defaults' });
  assert(await link.isVisible(), 'no visible "Reload with defaults" link');
  const href = await link.getAttribute('href');
  const pathname = await t.page.evaluate(() => location.pathname);
  assert(href === pathname, `reload link href ${href} != location.pathname ${pathname}`);
  assert(await t.page.locator('#loader').isHidden(), 'loader still visible');
}, { allowConsoleErrors: /Failed to load resource.*404|attention_lab\.wasm/i, allowFailedRequests: /attention_lab\.wasm/ });

test('abort shows an error overlay', async (t) => {
  await openLab(t);
  await t.page.evaluate(() => window.Module.onAbort('simulated abort for the test'));
  const box = t.page.locator('#lab-error');
  await box.waitFor({ state: 'visible', timeout: 5000 });
  const text = await box.innerText();
  assert(/simulated abort for the test/.test(text), `overlay does not show the abort message: ${text}`);
  assert(await t.page.locator('#lab-error a', { hasText: 'Reload with defaults' }).isVisible(), 'no reload link');
}, { allowConsoleErrors: /simulated abort/ });

// ---------------------------------------------------------------------------

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(a);
    if (!m) throw new Error(`unexpected argument: ${a}`);
    out[m[1]] = m[2] !== undefined ? m[2] : argv[++i];
  }
  return out;
}

async function loadExtraTests() {
  const files = (await readdir(here)).filter((f) => f.endsWith('.test.mjs')).sort();
  for (const f of files) await import(pathToFileURL(path.join(here, f)).href);
}

async function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(e.message);
    process.exit(2);
  }
  if (args.help !== undefined) {
    console.log(await readFile(fileURLToPath(import.meta.url), 'utf8').then((s) => s.split('\n').slice(1, 9).join('\n')));
    return;
  }
  const url = args.url || process.env.LAB_URL;
  const out = path.resolve(args.out || process.env.LAB_OUT || path.join(os.tmpdir(), 'attention-lab-browser-tests'));
  const grepSrc = args.grep || process.env.LAB_GREP;
  if (!url) {
    console.error('usage: node run.mjs --url http://127.0.0.1:PORT/ --out DIR [--grep REGEX]  (or LAB_URL / LAB_OUT)');
    process.exit(2);
  }
  await loadExtraTests();
  const { passed, failed } = await runTests({ url, out, grep: grepSrc ? new RegExp(grepSrc) : null });
  process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
