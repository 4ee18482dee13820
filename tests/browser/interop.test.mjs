// Interop tests: the export buttons (real browser downloads, read back here and by
// NumPy / PyTorch), "Copy as prompt" and "Copy link", config files pasted into the
// setup panel or dropped on the page, and the Cost tab with its L sweep.
import { execFile } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test, assert } from './lib/harness.mjs';
import {
  openLab, labState, waitForState, focusCanvas, note, layoutRect, clickRect, parkMouse,
  pressUntil, hoverCell, screenshotNotBlank, waitFrames, waitReady, typeLines, clickForDownload,
  dropFile, stableRect, waitSettled,
} from './lib/lab.mjs';

const T = 5000;
const PYTHON = '/usr/bin/python3';
const TRACE_TENSORS = ['x', 'memory', 'pe', 'query_in', 'key_value_in', 'w_q', 'w_k', 'w_v', 'w_o', 'b_q', 'b_k', 'b_v',
  'b_o', 'q', 'k', 'v', 'q_heads', 'k_heads', 'v_heads', 'scores', 'scaled', 'mask', 'masked', 'weights', 'context',
  'concat', 'output'];

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const prod = (xs) => xs.reduce((a, b) => a * b, 1);
const flat = (x) => (Array.isArray(x) ? x.flatMap(flat) : [x]);

function run(file, args, { timeout = 180000 } = {}) {
  return new Promise((resolve) => {
    execFile(file, args, { timeout, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, signal: err && err.signal, stdout, stderr, err });
    });
  });
}

/** Minimal .npy reader (version 1/2, little-endian float32, C order). */
function parseNpy(buf) {
  assert(buf.subarray(0, 6).toString('latin1') === '\x93NUMPY', 'not an .npy file (magic)');
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.subarray(start, start + hlen).toString('latin1');
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const fortran = /'fortran_order':\s*(True|False)/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  assert(descr && fortran && shape, `unparsable .npy header: ${header}`);
  assert(descr[1] === '<f4' && fortran[1] === 'False', `.npy header: ${header}`);
  assert((start + hlen) % 16 === 0, `.npy data not 16-byte aligned (header ends at ${start + hlen})`);
  const dims = shape[1].split(',').map((x) => x.trim()).filter(Boolean).map(Number);
  const n = prod(dims);
  const data = [];
  for (let i = 0; i < n; i++) data.push(buf.readFloatLE(start + hlen + 4 * i));
  assert(buf.length === start + hlen + 4 * n, `.npy is ${buf.length} bytes, expected ${start + hlen + 4 * n}`);
  return { shape: dims, data, header };
}

/** The exported CSV: a '# name (dims)' line, a header, one row per leading index. */
function parseCsv(text, shape, dims) {
  const lines = text.split('\n');
  assert(lines[lines.length - 1] === '', 'CSV does not end with a newline');
  lines.pop();
  assert(/^# weights \(B=\d+, h=\d+, L_q=\d+, L_kv=\d+\)$/.test(lines[0]), `CSV comment line: ${lines[0]}`);
  const last = shape[shape.length - 1];
  const wantHeader = [...dims.slice(0, -1), ...Array.from({ length: last }, (_, k) => `${dims[dims.length - 1]}[${k}]`)].join(',');
  assert(lines[1] === wantHeader, `CSV header "${lines[1]}" != "${wantHeader}"`);
  const rows = lines.slice(2);
  const lead = shape.slice(0, -1);
  assert(rows.length === prod(lead), `CSV has ${rows.length} rows, expected ${prod(lead)} = product of [${lead}]`);
  const values = [];
  const index = lead.map(() => 0);
  rows.forEach((row, r) => {
    const cells = row.split(',');
    assert(cells.length === lead.length + last, `CSV row ${r} has ${cells.length} cells: ${row}`);
    assert(same(cells.slice(0, lead.length).map(Number), index), `CSV row ${r} index ${cells.slice(0, lead.length)} != [${index}]`);
    for (const c of cells.slice(lead.length)) {
      const v = c === '' ? null : Number(c);
      assert(v === null || Number.isFinite(v), `CSV row ${r}: value "${c}" is not finite`);
      values.push(v);
    }
    for (let a = index.length - 1; a >= 0; a--) {
      if (++index[a] < lead[a]) break;
      index[a] = 0;
    }
  });
  return values;
}

/** Download an export by clicking its button; save it into dir. Returns {name, file, bytes, state}. */
async function exportFile(t, s, id, dir, extRe) {
  const d = await clickForDownload(t, layoutRect(s, `export:${id}`));
  const name = d.suggestedFilename();
  assert(extRe.test(name), `export:${id} downloaded "${name}"`);
  const file = path.join(dir, name);
  await d.saveAs(file);
  assert(!(await d.failure()), `download of ${name} failed: ${await d.failure()}`);
  const bytes = await readFile(file);
  const st = await waitForState(t, (x) => x.last_action === `saved ${name} (${bytes.length} bytes)`,
    { timeout: T, message: `last_action "saved ${name} (${bytes.length} bytes)"` });
  const lastSave = await t.page.evaluate(() => window.lab.lastSave);
  assert(lastSave && lastSave.name === name && lastSave.size === bytes.length, `window.lab.lastSave ${JSON.stringify(lastSave)} vs ${name} ${bytes.length} bytes`);
  return { name, file, bytes, state: st };
}

// ---------------------------------------------------------------------------

test('interop: every export button gives a file that reads back (CSV, npy, JSON, trace, PyTorch, prompt, link)', async (t) => {
  const hash = '#d_model=12&heads=3&seq_len=5&batch=2&seed=7&mask=causal&stage=softmax&head=1';
  const s = await openLab(t, hash);
  const cfg = s.config;
  assert(cfg.d_model === 12 && cfg.heads === 3 && cfg.seq_len === 5 && s.stage.id === 'softmax' && s.selection.head === 1,
    `setup from ${hash}: ${JSON.stringify(cfg)} stage ${s.stage.id} head ${s.selection.head}`);
  const step = s.stages.find((x) => x.id === 'softmax').steps.at(-1);
  const shape = step.shape, dims = step.dims;
  assert(same(shape, [2, 3, 5, 5]) && same(dims, ['B', 'h', 'L_q', 'L_kv']), `softmax stage tensor [${shape}] (${dims})`);
  const dir = path.join(t.out, 'exports');
  await mkdir(dir, { recursive: true });
  const prefix = 'attn_d12_h3_L5_B2_causal_s7_';

  // CSV: header, one row per (B, h, L_q), rows of probabilities.
  const csv = await exportFile(t, s, 'csv', dir, /\.csv$/);
  assert(csv.name === `${prefix}weights.csv`, `CSV file name ${csv.name}`);
  const csvValues = parseCsv(csv.bytes.toString('utf8'), shape, dims);
  const L = shape[3];
  for (let r = 0; r < csvValues.length / L; r++) {
    const row = csvValues.slice(r * L, (r + 1) * L);
    const sum = row.reduce((a, b) => a + b, 0);
    assert(Math.abs(sum - 1) < 1e-5, `CSV weights row ${r} sums to ${sum}`);
    const i = r % shape[2];
    assert(row.slice(i + 1).every((v) => v === 0), `CSV weights row ${r} (query ${i}) puts weight on a future key under the causal mask: ${row}`);
  }
  // One value against what the page shows on hover.
  await parkMouse(t);
  const hv = await hoverCell(t, 'weights', 3, 1);
  const at = (b, h, i, j) => ((b * shape[1] + h) * shape[2] + i) * shape[3] + j;
  assert(Math.abs(csvValues[at(0, 1, 3, 1)] - hv.value) < 1e-7, `CSV weights[0,1,3,1] ${csvValues[at(0, 1, 3, 1)]} != hovered value ${hv.value}`);
  await parkMouse(t);

  // .npy: NumPy reads it with the stage's shape; the data equals the CSV.
  const npy = await exportFile(t, s, 'npy', dir, /\.npy$/);
  assert(npy.name === `${prefix}weights.npy`, `.npy file name ${npy.name}`);
  const py = await run(PYTHON, ['-c', 'import numpy,sys; a=numpy.load(sys.argv[1]); print(a.shape, a.dtype, float(a.sum()))', npy.file], { timeout: 60000 });
  assert(py.code === 0, `numpy.load failed (${py.code}): ${py.stderr}`);
  const m = /^\(([\d, ]+)\) (\w+) ([-\d.e+]+)$/.exec(py.stdout.trim());
  assert(m, `numpy printed: ${py.stdout}`);
  const npShape = m[1].split(',').map((x) => x.trim()).filter(Boolean).map(Number);
  assert(same(npShape, shape) && m[2] === 'float32', `numpy sees ${m[1]} ${m[2]}, stage tensor is [${shape}] float32`);
  assert(Math.abs(Number(m[3]) - prod(shape.slice(0, 3))) < 1e-3, `numpy: the weights sum to ${m[3]}, expected ${prod(shape.slice(0, 3))} (one per row)`);
  const npyData = parseNpy(npy.bytes);
  assert(same(npyData.shape, shape), `.npy header shape [${npyData.shape}]`);
  npyData.data.forEach((v, k) => assert(Math.abs(v - csvValues[k]) <= 1e-7 * Math.max(1, Math.abs(v)), `.npy value ${k}: ${v} vs CSV ${csvValues[k]}`));

  // JSON: name, shape, dims, nested data equal to the CSV.
  const js = await exportFile(t, s, 'json', dir, /\.json$/);
  const tj = JSON.parse(js.bytes.toString('utf8'));
  assert(tj.name === 'weights' && same(tj.shape, shape) && same(tj.dims, dims), `JSON export: name ${tj.name}, shape ${tj.shape}, dims ${tj.dims}`);
  assert(tj.data.length === shape[0] && tj.data[0].length === shape[1] && tj.data[0][0].length === shape[2] && tj.data[0][0][0].length === shape[3],
    'JSON data nesting does not follow the shape');
  const jsonValues = flat(tj.data);
  assert(same(jsonValues, csvValues), 'JSON data differs from the CSV values');

  // The whole trace: every tensor, the same weights, the output.
  const tr = await exportFile(t, s, 'trace', dir, /\.json$/);
  assert(tr.name === `${prefix}trace.json`, `trace file name ${tr.name}`);
  const trace = JSON.parse(tr.bytes.toString('utf8'));
  const names = trace.tensors.map((x) => x.name);
  const missing = TRACE_TENSORS.filter((n) => !names.includes(n));
  assert(missing.length === 0, `trace JSON lacks ${missing} (has ${names})`);
  for (const k of ['d_model', 'heads', 'seq_len', 'batch', 'seed']) assert(trace.config[k] === cfg[k], `trace config ${k} ${trace.config[k]} != ${cfg[k]}`);
  const out = trace.tensors.find((x) => x.name === 'output');
  assert(same(out.shape, [2, 5, 12]) && flat(out.data).length === 120 && flat(out.data).every(Number.isFinite), `trace output shape [${out.shape}]`);
  assert(same(flat(trace.tensors.find((x) => x.name === 'weights').data), csvValues), 'trace weights differ from the stage export');
  assert(Array.isArray(trace.stages) && trace.stages.length === s.stages.length, `trace stages: ${trace.stages && trace.stages.length}`);

  // The PyTorch script runs and agrees with the lab.
  const sc = await exportFile(t, s, 'pytorch', dir, /\.py$/);
  assert(sc.name === `${prefix}reproduce.py`, `script file name ${sc.name}`);
  const started = Date.now();
  const r = await run(PYTHON, [sc.file]);
  note(t, `PyTorch script: exit ${r.code} after ${((Date.now() - started) / 1000).toFixed(1)} s: ${r.stdout.trim().split('\n').at(-1)}`);
  assert(r.code === 0, `PyTorch script exit ${r.code} ${r.signal || ''}: ${(r.stdout + r.stderr).slice(-1500)}`);
  assert(/^PyTorch agrees with Attention Lab: max \|diff\| weights=\S+, output=\S+$/m.test(r.stdout), `no agreement line: ${r.stdout.slice(-800)}`);
  assert(/weights: torch\.Size\(\[2, 3, 5, 5\]\)/.test(r.stdout) && /output: torch\.Size\(\[2, 5, 12\]\)/.test(r.stdout), `shapes printed: ${r.stdout.slice(0, 1500)}`);

  // Copy as prompt: the stage as text (formula, PyTorch line, named shape, values of the selected head).
  const clip = await t.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.origin }).then(() => true, () => false);
  await clickRect(t, layoutRect(s, 'export:prompt'));
  const sp = await waitForState(t, (x) => /^copied the stage as text \(\d+ bytes\)$/.test(x.last_action), { timeout: T, message: 'Copy as prompt -> last_action' });
  const prompt = await t.page.evaluate(() => window.lab.lastCopy);
  assert(typeof prompt === 'string' && prompt.length > 0, `window.lab.lastCopy after Copy as prompt: ${prompt}`);
  const counted = Number(/\((\d+) bytes\)/.exec(sp.last_action)[1]);
  assert(counted === Buffer.byteLength(prompt), `last_action "${sp.last_action}" vs a text of ${Buffer.byteLength(prompt)} UTF-8 bytes`);
  for (const want of [`stage 7 of 10: ${s.stage.title}`, 'Paper formula: A = softmax(S\', dim = keys)', 'PyTorch: weights = scores.softmax(dim=-1)',
    '(B=2, h=3, L_q=5, L_kv=5)', 'Values of weights, batch item 0, head 1', 'd_model=12, h=3, d_k=d_v=4']) {
    assert(prompt.includes(want), `prompt text lacks "${want}":\n${prompt}`);
  }
  // Its value table is the selected head's: row L_q=3 against the CSV.
  const rowLine = prompt.split('\n').find((l) => /^\s*L_q=3\s/.test(l));
  assert(rowLine, `no "L_q=3" row in the prompt:\n${prompt}`);
  const shown = rowLine.trim().split(/\s+/).slice(1).map(Number);
  const want = csvValues.slice(at(0, 1, 3, 0), at(0, 1, 3, 0) + L);
  assert(shown.length === L && shown.every((v, k) => Math.abs(v - want[k]) < 5e-3), `prompt row L_q=3 [${shown}] vs CSV [${want}]`);
  if (clip) {
    const fromClipboard = await t.page.evaluate(() => navigator.clipboard.readText().catch((e) => `clipboard error: ${e}`));
    if (fromClipboard !== prompt) note(t, `system clipboard does not hold the prompt text (headless?): ${String(fromClipboard).slice(0, 120)}`);
  }

  // Copy link: change the view by keyboard first, then the link must reproduce it in a fresh page.
  await focusCanvas(t);
  await pressUntil(t, ']', (x) => x.selection.head === 2, { timeout: T, message: "']' -> head 2" });
  await pressUntil(t, 'b', (x) => x.selection.batch === 1, { timeout: T, message: "'b' -> item 1" });
  await pressUntil(t, 'ArrowLeft', (x) => x.stage.id === 'mask', { timeout: T, message: 'ArrowLeft -> mask' });
  const before = await labState(t.page);
  await clickRect(t, layoutRect(before, 'export:link'));
  await waitForState(t, (x) => /^copied the share link \(\d+ bytes\)$/.test(x.last_action), { timeout: T, message: 'Copy link -> last_action' });
  const link = await t.page.evaluate(() => window.lab.lastCopy);
  const base = new URL(t.url);
  const u = new URL(link);
  assert(u.origin === base.origin && u.pathname === base.pathname, `link ${link} is not on the page ${t.url}`);
  assert(u.hash.slice(1) === before.url_hash, `link hash ${u.hash} != url_hash ${before.url_hash}`);
  await t.page.goto('about:blank');
  await t.page.goto(link, { waitUntil: 'load' });
  const again = await waitReady(t);
  assert(same(again.config, before.config), `config from the link ${JSON.stringify(again.config)} != ${JSON.stringify(before.config)}`);
  assert(again.stage.id === 'mask' && again.selection.head === 2 && again.selection.batch === 1 && again.selection.all_heads === before.selection.all_heads,
    `view from the link: stage ${again.stage.id}, selection ${JSON.stringify(again.selection)}`);
  assert(again.notes.length === 0 && again.errors.length === 0 && again.url_hash === before.url_hash,
    `after opening the link: notes ${JSON.stringify(again.notes)}, errors ${JSON.stringify(again.errors)}, url_hash ${again.url_hash}`);
  note(t, `exports: ${[csv, npy, js, tr, sc].map((x) => `${x.name} ${x.bytes.length} B`).join(', ')}; prompt ${prompt.length} chars; link ${link}`);
}, { timeout: 300000 });

test('interop: a pasted TOML or JSON config loads; ignored keys and errors become notes', async (t) => {
  const s0 = await openLab(t);
  // The messages panel under the setup takes room once there are notes: the box and its
  // button are found again (scrolled to with the wheel) before each paste.
  const inside = (r, w) => r && r.y >= w.y && r.y + r.h <= w.y + w.h;
  const onScreen = async (key) => {
    for (let i = 0; i < 30; i++) {
      const s = await waitSettled(t, { timeout: T });
      const win = s.scroll['Setup/body'], r = s.layout[key];
      if (inside(r, win)) return r;
      await t.page.mouse.move(win.x + win.w / 2, win.y + win.h / 2);
      await t.page.mouse.wheel(0, r && r.y < win.y ? -100 : 100);
    }
    throw new Error(`${key} never scrolled into the setup panel`);
  };
  const paste = async (text) => {
    const box = await onScreen('config_text');
    await typeLines(t, box, text);
    const typed = await labState(t.page);
    assert(!Object.keys(typed.layout).some((k) => k.startsWith('exp:')) && typed.experiment === null && typed.stage.id === s0.stage.id,
      'typing into the config field triggered shortcut keys');
    await clickRect(t, await onScreen('config_load'));
  };

  // TOML with an [attention] table and a table the lab does not use.
  await paste('[attention]\nd_model = 16\nnum_heads = 4\nseq_len = 5\n[api]\nkey = "x"\n');
  const s1 = await waitForState(t, (s) => s.config.d_model === 16 && s.config.heads === 4 && s.config.seq_len === 5,
    { timeout: T, message: 'TOML paste -> d_model 16, heads 4, seq_len 5' });
  assert(s1.config.d_k === 4 && s1.config.kv_len === 5 && s1.errors.length === 0, `after TOML: ${JSON.stringify(s1.config)} errors ${JSON.stringify(s1.errors)}`);
  assert(s1.last_action === 'loaded pasted config (toml)', `last_action after TOML: ${s1.last_action}`);
  assert(same(s1.notes, ['pasted config: from the file: d_model=16, heads=4, seq_len=5',
    'pasted config: kept from before (the file does not set them): batch=2, seed=42, mask=causal, mask_fill=-inf, scale=on, pe=on, bias=on, cross=off',
    'pasted config: ignored (not used by the lab): api.*']), `notes after TOML: ${JSON.stringify(s1.notes)}`);
  assert(same(s1.stages.find((x) => x.id === 'softmax').steps.at(-1).shape, [s1.config.batch, 4, 5, 5]), 'weights shape did not follow the TOML');
  assert(/(^|&)d_model=16&heads=4&seq_len=5(&|$)/.test(s1.url_hash), `url_hash after TOML: ${s1.url_hash}`);

  // Broken JSON: a note naming the file problem, the config stays.
  await paste('{"d_model": 32, "h": ');
  const s2 = await waitForState(t, (s) => s.last_action.startsWith('could not load pasted config'),
    { timeout: T, message: 'broken JSON -> could not load' });
  assert(s2.notes.length >= 1 && s2.notes.every((n) => n.startsWith('pasted config: ')) && s2.notes.some((n) => /^pasted config: file: .*not valid JSON/.test(n)),
    `notes after broken JSON: ${JSON.stringify(s2.notes)}`);
  assert(same(s2.config, s1.config) && s2.errors.length === 0, `config changed by broken JSON: ${JSON.stringify(s2.config)}`);
  note(t, `broken JSON: ${s2.notes.join(' | ')}`);

  // d_k that contradicts d_model / h: a note naming d_k with both values.
  await paste('{"d_model": 32, "h": 4, "d_k": 16}');
  const s3 = await waitForState(t, (s) => s.last_action.startsWith('could not load pasted config') && s.notes.some((n) => /d_k/.test(n)),
    { timeout: T, message: 'inconsistent d_k -> a note about d_k' });
  const dkNote = s3.notes.find((n) => /d_k/.test(n));
  assert(/^pasted config: d_k: /.test(dkNote) && /\b16\b/.test(dkNote) && /\b8\b/.test(dkNote), `d_k note lacks 16 and 8 (= 32 / 4): ${dkNote}`);
  assert(same(s3.config, s1.config), `config changed by an inconsistent d_k: ${JSON.stringify(s3.config)}`);
  note(t, `inconsistent d_k: ${dkNote}`);

  // A valid JSON paste after the errors loads, and clears the notes.
  await paste('{"d_model": 24, "num_heads": 6, "batch_size": 3}');
  const s4 = await waitForState(t, (s) => s.config.d_model === 24 && s.config.heads === 6 && s.config.batch === 3,
    { timeout: T, message: 'JSON paste -> d_model 24, heads 6, batch 3' });
  assert(same(s4.notes, ['pasted config: from the file: d_model=24, heads=6, batch=3',
    'pasted config: kept from before (the file does not set them): seq_len=5, seed=42, mask=causal, mask_fill=-inf, scale=on, pe=on, bias=on, cross=off'])
    && s4.config.seq_len === 5 && s4.last_action === 'loaded pasted config (json)',
    `after valid JSON: notes ${JSON.stringify(s4.notes)}, seq_len ${s4.config.seq_len}, last_action ${s4.last_action}`);
  await parkMouse(t);
  await screenshotNotBlank(t, 'config-pasted.png');
});

test('interop: a config file dropped on the page loads; garbage gets a note', async (t) => {
  await openLab(t);
  const paper = { d_model: 512, h: 8, d_k: 64, d_v: 64, d_ff: 2048, P_drop: 0.1, seq_len: 10, batch_size: 2, seed: 42 };
  await dropFile(t, 'paper.json', JSON.stringify(paper, null, 2));
  const s1 = await waitForState(t, (s) => s.config.d_model === 512 && s.config.heads === 8 && s.config.seq_len === 10 && s.config.batch === 2,
    { timeout: 10000, message: 'drop paper.json -> 512/8/10/2' });
  assert(s1.config.d_k === 64 && s1.config.seed === 42 && s1.errors.length === 0, `after paper.json: ${JSON.stringify(s1.config)}`);
  assert(s1.last_action === 'loaded paper.json (json)', `last_action ${s1.last_action}`);
  const ign = s1.notes.find((n) => n.startsWith('paper.json: ignored'));
  assert(ign && /\bd_ff\b/.test(ign) && /\bP_drop\b/.test(ign) && s1.notes.length === 3
    && s1.notes[1] === 'paper.json: kept from before (the file does not set them): mask=causal, mask_fill=-inf, scale=on, pe=on, bias=on, cross=off', `notes after paper.json: ${JSON.stringify(s1.notes)}`);
  assert(same(s1.stages.find((x) => x.id === 'softmax').steps.at(-1).shape, [2, 8, 10, 10]), 'weights shape did not follow paper.json');

  // A binary file (an image's header and noise): a note; the page keeps going with the same config.
  let seed = 12345;
  const noise = Array.from({ length: 2048 }, () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) >> 16) & 0xff);
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...noise];
  await dropFile(t, 'picture.png', png);
  const s2 = await waitForState(t, (s) => s.last_action.startsWith('could not load picture.png'),
    { timeout: 10000, message: 'drop picture.png -> could not load' });
  assert(s2.notes.length >= 1 && s2.notes.every((n) => n.startsWith('picture.png: ')), `notes after a binary file: ${JSON.stringify(s2.notes)}`);
  assert(s2.notes.some((n) => /binary/.test(n)), `the note does not say the file is binary: ${JSON.stringify(s2.notes)}`);
  assert(same(s2.config, s1.config) && s2.errors.length === 0, `config changed by a binary file: ${JSON.stringify(s2.config)}`);
  note(t, `binary drop: ${s2.notes.join(' | ')}`);

  // Valid JSON followed by a NUL and junk: the whole file reaches the reader (not
  // just the part before the NUL), so it is refused, not silently half-read.
  await dropFile(t, 'nul.json', [...Buffer.from('{"d_model": 64, "h": 4}'), 0, 0xff, 0xfe, 0x01]);
  const sn = await waitForState(t, (s) => s.last_action.startsWith('could not load nul.json'), { timeout: 10000, message: 'drop nul.json -> could not load' });
  assert(same(sn.config, s1.config) && sn.notes.every((n) => n.startsWith('nul.json: ')), `after nul.json: ${JSON.stringify(sn.notes)}`);

  // A file over the 1 MiB limit is refused unread, with its size in the note.
  await dropFile(t, 'big.json', '{"d_model": 64}' + ' '.repeat((1 << 20) + 10));
  const sb = await waitForState(t, (s) => s.last_action.startsWith('could not load big.json'), { timeout: 10000, message: 'drop big.json -> could not load' });
  assert(sb.notes.some((n) => /larger than the 1 MiB limit/.test(n)) && same(sb.config, s1.config), `after big.json: ${JSON.stringify(sb.notes)}`);

  // Text that is neither JSON nor TOML.
  await dropFile(t, 'notes.txt', 'hello = = world\n{{{');
  const s3 = await waitForState(t, (s) => s.last_action.startsWith('could not load notes.txt'), { timeout: 10000, message: 'drop notes.txt -> could not load' });
  assert(s3.notes.length >= 1 && s3.notes.every((n) => n.startsWith('notes.txt: ')) && same(s3.config, s1.config), `after notes.txt: ${JSON.stringify(s3.notes)}`);

  // Still alive: frames advance and keys work.
  await focusCanvas(t);
  await pressUntil(t, 'End', (s) => s.stage.id === 'output', { timeout: T, message: 'End after the drops' });
  assert(await t.page.locator('#lab-error').isHidden(), 'error overlay after dropping files');
  await parkMouse(t);
  await screenshotNotBlank(t, 'config-dropped.png');
});

test('interop: the Cost tab measures stages and sweeps L', async (t) => {
  const s0 = await openLab(t);
  assert(s0.cost_tab_open === false, 'cost tab open at start');
  await clickRect(t, layoutRect(s0, 'tab:cost'));
  const s1 = await waitForState(t, (s) => s.cost_tab_open === true && !!s.layout['cost:sweep'], { timeout: T, message: 'click tab:cost -> cost_tab_open' });
  assert(s1.stage_ms.length === 10 && s1.stage_ms.every((v) => typeof v === 'number' && Number.isFinite(v) && v >= 0), `stage_ms ${JSON.stringify(s1.stage_ms)}`);
  assert(s1.sweep.length === 0, `sweep before the button: ${JSON.stringify(s1.sweep)}`);
  await clickRect(t, await stableRect(t, 'cost:sweep'));
  const s2 = await waitForState(t, (s) => s.sweep.length > 0, { timeout: 120000, message: 'cost:sweep -> sweep points' });
  const sw = s2.sweep;
  assert(same(sw.map((p) => p.seq_len), [16, 32, 64, 128, 256, 512]), `sweep lengths ${sw.map((p) => p.seq_len)}`);
  for (const p of sw) {
    for (const k of ['attention_ms', 'projection_ms', 'attention_flops', 'projection_flops']) {
      assert(Number.isFinite(p[k]) && p[k] >= 0, `sweep L=${p.seq_len}: ${k} = ${p[k]}`);
    }
    assert(p.attention_flops > 0 && p.projection_flops > 0, `sweep L=${p.seq_len}: zero FLOPs`);
  }
  for (let i = 1; i < sw.length; i++) {
    const ra = sw[i].attention_flops / sw[i - 1].attention_flops;
    const rp = sw[i].projection_flops / sw[i - 1].projection_flops;
    assert(ra === 4, `attention FLOPs L=${sw[i - 1].seq_len} -> ${sw[i].seq_len}: ratio ${ra}, expected exactly 4 (L^2)`);
    assert(rp === 2, `projection FLOPs L=${sw[i - 1].seq_len} -> ${sw[i].seq_len}: ratio ${rp}, expected exactly 2 (L)`);
  }
  note(t, `stage_ms [${s1.stage_ms}]; sweep ms (attention / projection): ${sw.map((p) => `L=${p.seq_len} ${p.attention_ms.toFixed(3)}/${p.projection_ms.toFixed(3)}`).join(', ')}`);
  // The tab stays open and the stepper still works underneath.
  await focusCanvas(t);
  const s3 = await pressUntil(t, 'ArrowRight', (s) => s.stage.id === 'project', { timeout: T, message: 'ArrowRight with the cost tab open' });
  assert(s3.cost_tab_open === true && s3.sweep.length === 6, `after ArrowRight: cost_tab_open ${s3.cost_tab_open}, ${s3.sweep.length} sweep points`);
  await parkMouse(t);
  await waitFrames(t, 2);
  await screenshotNotBlank(t, 'cost.png');
  // Back to the dimension table.
  await clickRect(t, layoutRect(s3, 'tab:dimensions'));
  await waitForState(t, (s) => s.cost_tab_open === false, { timeout: T, message: 'click tab:dimensions -> cost tab closed' });
}, { timeout: 240000 });
