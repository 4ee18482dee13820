// Golden tests: state() for a set of views, in English and 中文, against captures in
// tests/golden/browser/ (LAB_UPDATE_GOLDENS=1 rewrites them). What changes from run to
// run is left out: frame counts, timings, screen positions, GPU upload counts, the host's
// render counters. Numbers
// compare to 1e-7 relative, keys in any order; the layout and heatmaps compare by what
// they name (rect ids, tensor slices), not where they are.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, assert } from './lib/harness.mjs';
import { openLab, labState, waitForState, layoutRect, clickRect, typeInto, dropFile, parkMouse, waitFrames } from './lib/lab.mjs';

const T = 30000;
const here = path.dirname(fileURLToPath(import.meta.url));
const goldenDir = path.join(here, '..', 'golden', 'browser');
const updating = !!process.env.LAB_UPDATE_GOLDENS && process.env.LAB_UPDATE_GOLDENS !== '0';

function stable(s) {
  const out = JSON.parse(JSON.stringify(s));
  delete out.frame;
  delete out.stage_ms;
  delete out.recompute_ms;
  delete out.random_traces;  // counters of the page's session
  delete out.generation;
  out.layout = Object.keys(out.layout || {}).sort();
  out.scroll = Object.keys(out.scroll || {}).sort();  // regions by name; positions vary with the window
  delete out.render;  // the host's frame counters and timings
  out.heatmaps = (out.heatmaps || []).map((h) => ({ tensor: h.tensor, prefix: h.prefix, rows: h.rows, cols: h.cols }));
  if (out.gpu) out.gpu = { enabled: out.gpu.enabled };
  if (out.fonts) delete out.fonts.cjk_load_ms;
  if (out.experiment) delete out.experiment.compute_ms;
  // A plot's texts and lines by what they say and how they are drawn, not where.
  if (out.experiment && out.experiment.plots)
    out.experiment.plots = out.experiment.plots.map((p) => ({
      id: p.id,
      texts: p.texts.map((x) => `${x.kind}: ${x.text}`),
      lines: p.lines.map((l) => ({ label: l.label, style: l.style, markers: l.markers, points: l.points.length / 2 })),
    }));
  return out;
}

function difference(want, got, at) {
  if (typeof want === 'number' && typeof got === 'number') {
    if (want === got || Math.abs(want - got) <= 1e-7 * Math.max(Math.abs(want), Math.abs(got)) + 1e-12) return '';
    return `${at}: ${want} != ${got}`;
  }
  if (want === null || got === null || typeof want !== 'object' || typeof got !== 'object') {
    return want === got ? '' : `${at}: ${JSON.stringify(want)} != ${JSON.stringify(got)}`.slice(0, 400);
  }
  if (Array.isArray(want) !== Array.isArray(got)) return `${at}: array vs object`;
  if (Array.isArray(want)) {
    if (want.length !== got.length) return `${at}: ${want.length} elements != ${got.length}: ${JSON.stringify(got).slice(0, 300)}`;
    for (let i = 0; i < want.length; i++) {
      const d = difference(want[i], got[i], `${at}[${i}]`);
      if (d) return d;
    }
    return '';
  }
  for (const k of Object.keys(want)) {
    if (!(k in got)) return `${at}.${k}: missing`;
    const d = difference(want[k], got[k], `${at}.${k}`);
    if (d) return d;
  }
  for (const k of Object.keys(got)) if (!(k in want)) return `${at}.${k}: not in the golden`;
  return '';
}

async function checkGolden(name, state) {
  const file = path.join(goldenDir, `${name}.json`);
  const got = stable(state);
  if (updating) {
    await mkdir(goldenDir, { recursive: true });
    await writeFile(file, JSON.stringify(got, null, 1) + '\n');
    return;
  }
  const want = JSON.parse(await readFile(file, 'utf8'));
  const d = difference(want, got, name);
  assert(!d, `state() differs from tests/golden/browser/${name}.json at ${d}`);
}

const chinese = (x) => x.lang === 'zh' && x.text_lang === 'zh' && x.fonts.cjk === 'ready';
const english = (x) => x.lang === 'en' && x.text_lang === 'en';

async function goTo(t, hash, ready, message) {
  await t.goto(hash);
  await parkMouse(t);
  await waitForState(t, ready, { timeout: T, message });
  return waitFrames(t, 3);
}

const EXPERIMENTS = ['scaling', 'heads', 'masks', 'pe', 'mistakes', 'encdec'];
const VIEWS = [
  ['default', ''],
  ['padding_fully_masked', 'd_model=16&heads=4&seq_len=5&mask=padding&pad=5,0&scale=0&stage=mask&b=1&head=2'],
  ['cross_custom', 'cross=1&kv_len=6&seq_len=3&mask=custom&custom=110000.111000.111111&fill=1e9&stage=softmax&all=1'],
  ['hash_notes', 'heads=x&bogus=1&mask=zzz&scale=maybe&stage=nope&exp=nonsense'],
  ['hash_invalid', 'd_model=10&heads=3&stage=scale'],
];

for (const lang of ['en', 'zh']) {
  test(`golden: views in ${lang}`, async (t) => {
    await openLab(t, `#lang=${lang}`);
    const ready = lang === 'zh' ? chinese : english;
    for (const [name, hash] of VIEWS) {
      const s = await goTo(t, `#${hash}${hash ? '&' : ''}lang=${lang}`, (x) => ready(x) && x.url_hash.includes(`lang=${lang}`), name);
      await checkGolden(`${name}_${lang}`, s);
    }
    for (const key of EXPERIMENTS) {
      const s = await goTo(t, `#exp=${key}&lang=${lang}`,
        (x) => ready(x) && x.experiment && x.experiment.key === key && (x.experiment.series || x.experiment.cases || x.experiment.kinds || x.experiment.dims),
        `experiment ${key}`);
      await checkGolden(`exp_${key}_${lang}`, s);
    }
  });
}

test('golden: notes, errors and a kept trace follow a language switch', async (t) => {
  const s0 = await openLab(t, '#lang=en');
  await dropFile(t, 'bad.toml', '[attention]\nd_model = "512"\nnum_heads = 8.5\nd_ff = 2048\n[training]\nwarmup_steps = 4000\n');
  const en1 = await waitForState(t, (x) => x.notes.length >= 2, { timeout: T, message: 'notes about bad.toml' });
  await checkGolden('notes_file_en', await waitFrames(t, 2));  // the messages panel drawn
  await clickRect(t, layoutRect(en1, 'lang:zh'));
  const zh1 = await waitForState(t, (x) => chinese(x) && x.notes.length >= 2, { timeout: T, message: 'notes in Chinese' });
  await checkGolden('notes_file_zh', await waitFrames(t, 2));
  // An invalid knob keeps the last good trace; its checks follow the language too.
  await typeInto(t, layoutRect(zh1, 'knob:d_model'), 10);
  const ten = await waitForState(t, (x) => x.config.d_model === 10 && x.errors.length === 0, { timeout: T, message: 'd_model 10' });
  await typeInto(t, layoutRect(ten, 'knob:heads'), 3);
  const bad = await waitForState(t, (x) => x.errors.length > 0 && x.config.d_model === 10 && x.config.heads === 2,
    { timeout: T, message: 'invalid d_model 10 / heads 3' });
  await parkMouse(t);
  await checkGolden('invalid_knob_zh', await waitFrames(t, 2));
  await clickRect(t, layoutRect(bad, 'lang:en'));
  await waitForState(t, english, { timeout: T, message: 'English again' });
  await parkMouse(t);
  await checkGolden('invalid_knob_en', await waitFrames(t, 2));
  assert(s0.lang === 'en', 'started in English');
});
