// bench.mjs — Attention Lab browser benchmark (figures, not pass/fail):
//   frame time median and 95th percentile at "Paper base" with all heads visible,
//   time from navigation to the first interactive frame, the page's transfer size.
//   node bench.mjs --url http://127.0.0.1:PORT/ --page DIR [--seconds 5]
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

import { launchBrowser } from './lib/harness.mjs';

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
const url = arg('--url', process.env.LAB_URL);
const pageDir = arg('--page', process.env.LAB_PAGE);
const seconds = Number(arg('--seconds', '5'));
if (!url || !pageDir) {
  console.error('usage: node bench.mjs --url URL --page DIR [--seconds N]');
  process.exit(2);
}

function percentile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))];
}

// rAF intervals over `ms`: what a user perceives as frame time.
async function frameTimes(page, ms) {
  return page.evaluate((ms) => new Promise((resolve) => {
    const times = [];
    let last = 0;
    const start = performance.now();
    function tick(now) {
      if (last) times.push(now - last);
      last = now;
      if (now - start < ms) requestAnimationFrame(tick); else resolve(times);
    }
    requestAnimationFrame(tick);
  }), ms);
}

function summary(label, times) {
  const s = [...times].sort((a, b) => a - b);
  return `${label}: median ${percentile(s, 0.5).toFixed(1)} ms, p95 ${percentile(s, 0.95).toFixed(1)} ms over ${s.length} frames`;
}

const browser = await launchBrowser();
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });

  // First interactive frame: navigation start -> window.lab.ready (set after a rendered frame).
  const hash = '#d_model=512&heads=8&seq_len=10&batch=2&seed=42&mask=causal&stage=softmax&all=1';
  await page.goto(url + hash);
  await page.waitForFunction(() => window.lab && window.lab.ready === true, null, { timeout: 60000 });
  const firstFrame = await page.evaluate(() => performance.now());
  const state = await page.evaluate(() => window.lab.state());
  const heads = state.heatmaps.filter((h) => h.tensor === 'weights').length;

  await page.mouse.move(5, 795);
  const paper = await frameTimes(page, seconds * 1000);
  await page.goto(url + '#stage=softmax');
  await page.waitForFunction(() => window.lab && window.lab.ready === true, null, { timeout: 60000 });
  const tiny = await frameTimes(page, seconds * 1000);

  // Transfer size: every file the page loads, gzip -9 (what a compressing server sends).
  // The Chinese font is fetched only for 中文 (or CJK tokens): reported on its own.
  const FONT = 'lab_cjk.otf';
  const fontBytes = readFileSync(join(pageDir, FONT));
  let raw = 0, gz = 0;
  const files = readdirSync(pageDir).filter((f) => f !== FONT);
  const sizes = files.map((f) => {
    const bytes = readFileSync(join(pageDir, f));
    const g = gzipSync(bytes, { level: 9 }).length;
    raw += bytes.length;
    gz += g;
    return `${f} ${(bytes.length / 1024).toFixed(0)} KB (${(g / 1024).toFixed(0)} KB gzip)`;
  });

  console.log(`first interactive frame: ${firstFrame.toFixed(0)} ms after navigation start (Paper base, all heads)`);
  console.log(summary(`frame time, Paper base, all ${heads} heads (recompute ${state.recompute_ms.toFixed(2)} ms)`, paper));
  console.log(summary('frame time, Tiny (default)', tiny));
  console.log(`transfer, English page: ${(raw / 1024).toFixed(0)} KB raw, ${(gz / 1024).toFixed(0)} KB gzip: ${sizes.join('; ')}`);
  console.log(`Chinese font, fetched only for 中文: ${FONT} ${(fontBytes.length / 1024).toFixed(0)} KB raw, ` +
              `${(gzipSync(fontBytes, { level: 9 }).length / 1024).toFixed(0)} KB gzip`);
  console.log(`gpu heatmaps: ${state.gpu.enabled ? 'on' : 'off'}, textures uploaded ${state.gpu.uploads}`);
  if (errors.length) {
    console.error(`page errors during the benchmark: ${errors.join(' | ')}`);
    process.exitCode = 1;
  }
} finally {
  await browser.close();
}
