// Scale tests: heatmaps are GPU textures, long sequences display, and the hover
// still finds the exact cell when thousands of cells share one texture.
import { test, assert } from './lib/harness.mjs';
import { openLab, waitForState, waitFrames, findHeatmap, screenshotNotBlank, parkMouse, note } from './lib/lab.mjs';

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
