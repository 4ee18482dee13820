// Helpers specific to the Attention Lab page (see the web page contract).
import { assert } from './harness.mjs';

export const READY_TIMEOUT = 60000;

/** Navigate and wait until window.lab.ready === true. Returns state(). */
export async function openLab(t, rel = '') {
  await t.goto(rel);
  await t.waitFor(() => !!(window.lab && window.lab.ready === true), {
    timeout: READY_TIMEOUT,
    interval: 100,
    message: 'window.lab.ready === true',
  });
  return labState(t.page);
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
      throw new Error(`${message} not met within ${timeout / 1000} s (last state: ${JSON.stringify(s).slice(0, 300)})`);
    }
    await new Promise((r) => setTimeout(r, 30));
  }
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
