// Scale tests: heatmaps are GPU textures, long sequences display, and the hover
// still finds the exact cell when thousands of cells share one texture.
import { test, assert } from './lib/harness.mjs';
import { openLab, waitForState, findHeatmap, screenshotNotBlank, parkMouse, note, hoverCell, waitFrames } from './lib/lab.mjs';
import { decodePng } from './lib/png.mjs';

const T = 20000;  // one trace at L = 1024 takes a while in software

test('scale: heatmaps are float textures on the GPU', async (t) => {
  const s = await openLab(t, '#d_model=512&heads=8&seq_len=10&batch=2&stage=softmax&all=1');
  const ready = await waitForState(t, (x) => x.heatmaps.filter((h) => h.tensor === 'weights').length === 8,
    { timeout: T, message: '8 weights heatmaps' });
  assert(ready.gpu.enabled === true, `GPU heatmaps are off: ${JSON.stringify(ready.gpu)}`);
  assert(ready.gpu.uploads >= 16 && ready.gpu.textures >= 16, `textures: ${JSON.stringify(ready.gpu)}`);
  // Nothing changed: the next frames draw from the same textures, no re-upload.
  const later = await waitFrames(t, 5, { timeout: T });
  assert(later.gpu.uploads === ready.gpu.uploads, `re-uploaded without a change: ${ready.gpu.uploads} -> ${later.gpu.uploads}`);
  note(t, `gpu: ${JSON.stringify(later.gpu)}, config ${s.config.d_model}/${s.config.heads}`);
});

test('scale: seq_len 1024 displays and hovers to the exact cell', async (t) => {
  await openLab(t, '#d_model=64&heads=2&seq_len=1024&batch=1&mask=causal&stage=softmax');
  const s = await waitForState(t, (x) => x.config.seq_len === 1024 && !!findHeatmap(x, 'weights'),
    { timeout: T, message: 'L = 1024 weights heatmap' });
  const hm = findHeatmap(s, 'weights');
  assert(hm.rows === 1024 && hm.cols === 1024, `heatmap ${hm.rows}x${hm.cols}`);
  assert(s.stages[6].steps.at(-1).shape.join() === '1,2,1024,1024', `weights shape ${s.stages[6].steps.at(-1).shape}`);
  assert(s.stages[6].checks.every((c) => c.pass), `checks at L = 1024: ${JSON.stringify(s.stages[6].checks)}`);
  await parkMouse(t);
  await screenshotNotBlank(t, 'seq-len-1024.png');
  // A cell below the diagonal: cells are sub-pixel here, yet the hover names the
  // exact (i, j) under the mouse pixel (floor of position / cell size, +-1 for rounding).
  const mx = Math.round(hm.x + 300.5 * hm.cell_w), my = Math.round(hm.y + 700.5 * hm.cell_h);
  const wantI = Math.floor((my - hm.y) / hm.cell_h), wantJ = Math.floor((mx - hm.x) / hm.cell_w);
  await t.page.mouse.move(mx, my);
  const h = await waitForState(t, (x) => x.selection.hover && x.selection.hover.tensor === 'weights',
    { timeout: T, message: 'hover over the L = 1024 weights' });
  const idx = h.selection.hover.index;
  assert(idx.length === 4 && Math.abs(idx[2] - wantI) <= 1 && Math.abs(idx[3] - wantJ) <= 1,
    `hovered ${idx}, mouse (${mx}, ${my}) is over cell (${wantI}, ${wantJ}) at ${hm.cell_w.toFixed(3)} px per cell`);
  assert(h.selection.hover.text.includes(`i=${idx[2]}, j=${idx[3]}]`), `hover text: ${h.selection.hover.text}`);
  note(t, `L = 1024: recompute ${s.recompute_ms.toFixed(1)} ms, hovered ${idx}`);
});

// The GPU colours heatmap cells with the shader's table (generated at build time from
// src/app/data/colormap.def); the CPU path and state() use the C++ table. A screenshot pixel of
// a cell must be the colour the CPU gives its value, for both colour maps.
test('scale: the GPU draws a cell in the colour the CPU gives its value', async (t) => {
  const s = await openLab(t, '#d_model=16&heads=2&seq_len=5&batch=1&stage=softmax');
  assert(s.gpu.enabled, 'GPU heatmaps are off');
  const cells = [['weights', 1, 0], ['weights', 4, 3], ['masked', 3, 2], ['masked', 4, 0]];
  const want = [];
  for (const [tensor, row, col] of cells) {
    const h = await hoverCell(t, tensor, row, col);
    assert(/^#[0-9a-f]{6}$/.test(h.color), `hover colour ${h.color}`);
    want.push({ tensor, row, col, value: h.value, color: h.color });
  }
  await parkMouse(t);
  const st = await waitFrames(t, 3);
  const img = decodePng(await t.page.screenshot());
  for (const w of want) {
    const hm = findHeatmap(st, w.tensor);
    // Near the cell's top-left corner: clear of the gap lines and of the number drawn in the middle.
    const x = Math.round(hm.x + (w.col + 0.15) * hm.cell_w), y = Math.round(hm.y + (w.row + 0.15) * hm.cell_h);
    const at = (y * img.width + x) * img.channels;
    const got = [img.data[at], img.data[at + 1], img.data[at + 2]];
    const exp = [1, 3, 5].map((k) => parseInt(w.color.slice(k, k + 2), 16));
    const diff = Math.max(...got.map((v, k) => Math.abs(v - exp[k])));
    assert(diff <= 2, `${w.tensor}[${w.row}, ${w.col}] = ${w.value}: GPU pixel rgb(${got}) at (${x}, ${y}), CPU ${w.color} (diff ${diff})`);
  }
  note(t, `compared ${want.length} cells: ${want.map((w) => `${w.tensor} ${w.value.toFixed(3)} ${w.color}`).join(', ')}`);
});
