// Language tests: EN / 中文 by the browser's language, the URL, a click and the L
// key; the Chinese font is fetched only when needed; Chinese tokens are labelled
// per character; characters outside the font subset are named in a note.
import { test, assert } from './lib/harness.mjs';
import {
  openLab, waitForState, layoutRect, clickRect, focusCanvas, parkMouse, screenshotNotBlank, note, waitFrames, pickExperiment,
  typeInto, openWithoutWebGL2, dropFile, waitTextFocus,
} from './lib/lab.mjs';

const T = 20000;
const FONT = 'lab_cjk.otf';
const hasHanzi = (s) => /[\u4e00-\u9fff]/.test(s);
// A label is Chinese, or pure math (identifiers like d_model, symbols, one-letter names): no English word.
const MATH_WORDS = /\b(scores|scaled|masked|weights|context|concat|output|sqrt|softmax|exp|max|inf|NaN)\b/g;
const chineseOrMath = (s) => hasHanzi(s) || !/\b[A-Za-z]{3,}\b/.test(s.replace(/\b\w*_\w*\b/g, '').replace(MATH_WORDS, ''));
const fontRequests = (t) => t.requests.filter((u) => u.endsWith('/' + FONT)).length;

async function reloadLab(t) {
  await t.page.reload({ waitUntil: 'load' });
  await t.waitFor(() => !!(window.lab && window.lab.ready === true), { timeout: 60000, message: 'ready after reload' });
}

async function waitChinese(t, message) {
  return waitForState(t, (x) => x.lang === 'zh' && x.fonts.cjk === 'ready' && x.text_lang === 'zh' && x.fonts.cjk_glyphs > 0,
    { timeout: T, message: message || 'Chinese with its font loaded' });
}

test('i18n: an English browser gets English and never fetches the Chinese font', async (t) => {
  const s = await openLab(t, '#stage=softmax');
  const later = await waitFrames(t, 5);
  assert(s.lang === 'en' && later.lang === 'en', `lang ${s.lang}`);
  assert(later.stage.title === 'Softmax over the keys', `title ${later.stage.title}`);
  assert(later.fonts.cjk === 'none', `font state ${JSON.stringify(later.fonts)}`);
  assert(fontRequests(t) === 0, `the English page fetched ${FONT}`);
  assert(later.url_hash.includes('lang=en'), `hash ${later.url_hash}`);
  note(t, `requests: ${t.requests.map((u) => u.split('/').pop()).join(', ')}`);
});

test('i18n: a zh browser opens in Chinese; the choice is kept in the URL', async (t) => {
  await openLab(t, '#stage=softmax');
  const s = await waitChinese(t);
  assert(s.stage.title === '在键维上做 softmax', `title ${s.stage.title}`);
  assert(s.url_hash.includes('lang=zh'), `hash ${s.url_hash}`);
  assert(s.fonts.cjk_glyphs >= 6763, `CJK glyphs in the atlas (GB2312 levels 1 and 2): ${s.fonts.cjk_glyphs}`);
  assert(fontRequests(t) === 1, `${FONT} fetched ${fontRequests(t)} times`);
  // Checks and the stage's texts are Chinese too; ids and numbers stay.
  const checks = s.stages[6].checks;
  assert(checks.length > 0 && checks.every((c) => hasHanzi(c.label) && c.pass), `checks ${JSON.stringify(checks)}`);
  assert(s.stages.every((st) => st.checks.every((c) => chineseOrMath(c.label) && chineseOrMath(c.detail))),
    `a check in English: ${JSON.stringify(s.stages.flatMap((st) => st.checks).filter((c) => !chineseOrMath(c.label) || !chineseOrMath(c.detail)))}`);
  // An explicit lang=en in the link beats the browser's language.
  await t.goto('#stage=softmax&lang=en');
  await reloadLab(t);
  const en = await waitForState(t, (x) => x.lang === 'en' && x.text_lang === 'en' && x.stage.id === 'softmax',
    { timeout: T, message: 'lang=en' });
  assert(en.stage.title === 'Softmax over the keys', `title ${en.stage.title}`);
  note(t, `font ${s.fonts.cjk_bytes} bytes, ${s.fonts.cjk_glyphs} glyphs, request to atlas ${s.fonts.cjk_load_ms.toFixed(0)} ms`);
}, { locale: 'zh-CN' });

test('i18n: switch by click and by the L key; everything follows; a screenshot in Chinese', async (t) => {
  const s0 = await openLab(t, '#d_model=512&heads=8&seq_len=10&batch=2&mask=causal&stage=softmax&all=1');
  assert(s0.lang === 'en' && s0.fonts.cjk === 'none', `start ${s0.lang} ${s0.fonts.cjk}`);
  await clickRect(t, layoutRect(s0, 'lang:zh'));
  const zh = await waitChinese(t, 'Chinese after clicking 中文');
  assert(zh.stage.title === '在键维上做 softmax', `title ${zh.stage.title}`);
  assert(zh.config.d_model === 512 && zh.config.heads === 8 && zh.selection.all_heads, 'the view is kept across the switch');
  assert(zh.stages.every((st) => st.checks.every((c) => chineseOrMath(c.label))), 'every check label is Chinese');
  assert(zh.url_hash.includes('lang=zh'), `hash ${zh.url_hash}`);
  const url = await t.page.evaluate(() => window.location.hash);
  assert(url.includes('lang=zh'), `location.hash ${url}`);
  await parkMouse(t);
  await waitFrames(t, 3);
  const st = await screenshotNotBlank(t, 'i18n-zh-paper-base.png');
  // Experiments too: pick one from the menu (its entries are Chinese).
  await pickExperiment(t, 'masks');
  const ex = await waitForState(t, (x) => x.experiment && x.experiment.key === 'masks' && x.experiment.cases,
    { timeout: T, message: 'masks experiment' });
  assert(ex.experiment.title === '掩码', `experiment title ${ex.experiment.title}`);
  await parkMouse(t);
  await waitFrames(t, 3);
  await screenshotNotBlank(t, 'i18n-zh-masks.png');
  await focusCanvas(t);
  await t.page.keyboard.press('Escape');
  await waitForState(t, (x) => !x.experiment || !x.experiment.key, { timeout: T, message: 'back to the stepper' });
  // L switches back; nothing else changes, the font is not fetched again.
  await t.page.keyboard.press('l');
  const en = await waitForState(t, (x) => x.lang === 'en' && x.text_lang === 'en', { timeout: T, message: 'English after L' });
  assert(en.stage.title === 'Softmax over the keys', `title ${en.stage.title}`);
  assert(en.stages.every((s) => s.checks.every((c) => !hasHanzi(c.label))), 'English check labels');
  await t.page.keyboard.press('L');
  await waitChinese(t, 'Chinese again after Shift+L');
  assert(fontRequests(t) === 1, `${FONT} fetched ${fontRequests(t)} times`);
  // A reload keeps the language (it is in the URL).
  await reloadLab(t);
  await waitChinese(t, 'Chinese after a reload');
  note(t, `screenshot: ${st.distinctColours} colours`);
});

test('i18n: Chinese tokens are labelled per character; missing glyphs are named', async (t) => {
  const s0 = await openLab(t, '#lang=zh&seq_len=4&stage=scores');
  await waitChinese(t);
  // Click into the tokens field and commit Chinese text the way an input method
  // does (text without key presses): it reaches the field through the page's
  // hidden textarea, which has the focus while the field is active.
  await clickRect(t, layoutRect(s0, 'tokens'), { fx: 0.3 });
  await waitTextFocus(t, { timeout: T, message: 'focus on the text input while editing' });
  await t.page.keyboard.press('Control+A');
  await waitFrames(t, 1);
  await t.page.keyboard.insertText('小猫追着球跑，');
  await waitFrames(t, 1);
  await t.page.keyboard.type('ab');  // ordinary keys still work in between, and arrive exactly once
  await t.page.keyboard.insertText('它玩得很开心。');
  await waitFrames(t, 1);
  await t.page.keyboard.down('Enter');
  await waitFrames(t, 1);
  await t.page.keyboard.up('Enter');
  const s = await waitForState(t, (x) => x.tokens.length >= 14, { timeout: T, message: '15 tokens' });
  assert(s.tokens.join('|') === '小|猫|追|着|球|跑|，|ab|它|玩|得|很|开|心|。', `tokens ${s.tokens.join('|')}`);
  assert(s.config.seq_len === 15, `seq_len ${s.config.seq_len}`);
  assert(s.glyph_notes.length === 0, `notes ${s.glyph_notes}`);
  await parkMouse(t);
  await waitFrames(t, 3);
  await screenshotNotBlank(t, 'i18n-zh-tokens.png');
  // 龘 (U+9F98) is outside GB2312, 😀 outside ImGui's 16-bit range: both are named.
  await t.goto('#lang=zh&seq_len=3&stage=scores&tokens=%E9%BE%98%20%F0%9F%98%80%20%E7%8C%AB');
  const m = await waitForState(t, (x) => x.tokens.length === 3 && x.glyph_notes.length === 2,
    { timeout: T, message: 'two missing-glyph notes' });
  assert(m.glyph_notes[0].includes('U+9F98') && m.glyph_notes[1].includes('U+1F600'), `notes ${m.glyph_notes}`);
  note(t, `notes: ${m.glyph_notes.join(' | ')}`);
});

test('i18n: CJK tokens on the English page load the font; a failed font load is reported, the page lives', async (t) => {
  await openLab(t, '#seq_len=2&tokens=%E5%B0%8F%20%E7%8C%AB');
  const s = await waitForState(t, (x) => x.fonts.cjk === 'ready' && x.lang === 'en', { timeout: T, message: 'font for CJK tokens' });
  assert(s.tokens.join('') === '小猫' && s.glyph_notes.length === 0, `tokens ${s.tokens} notes ${s.glyph_notes}`);
  // A new page whose font request fails: English keeps working, Chinese shows placeholders and says why.
  await t.page.route('**/' + FONT, (route) => route.abort('failed'));
  await t.goto('#lang=en&stage=mask');
  await reloadLab(t);
  const s2 = await waitFrames(t, 2);
  await clickRect(t, layoutRect(s2, 'lang:zh'));
  const f = await waitForState(t, (x) => x.fonts.cjk === 'failed', { timeout: T, message: 'font load failed' });
  assert(f.lang === 'zh' && f.fonts.cjk_error.length > 0, `fonts ${JSON.stringify(f.fonts)}`);
  // Chinese cannot be drawn: the texts stay English (readable), the choice stays in the link.
  const e = await waitFrames(t, 2);
  assert(e.text_lang === 'en' && e.stage.title === 'Mask: forbid some query-key pairs', `texts ${e.text_lang}: ${e.stage.title}`);
  assert(e.url_hash.includes('lang=zh'), `hash ${e.url_hash}`);
  await waitFrames(t, 3);
  await clickRect(t, layoutRect(f, 'lang:en'));
  await waitForState(t, (x) => x.lang === 'en', { timeout: T, message: 'back to English' });
}, { allowFailedRequests: /lab_cjk\.otf/, allowConsoleErrors: /Failed to load resource|lab_cjk\.otf/ });

test('i18n: the page\'s own messages (before the app runs) are Chinese for a zh browser', async (t) => {
  const text = await openWithoutWebGL2(t);
  const box = t.page.locator('#lab-error');
  assert(text.includes('Attention Lab 需要 WebGL 2') && text.includes('硬件加速'), `message: ${text}`);
  assert(await t.page.locator('#lab-error a', { hasText: '以默认设置重新加载' }).isVisible(), 'no Chinese reload link');
  assert((await t.page.evaluate(() => document.documentElement.lang)) === 'zh-CN', 'html lang');
  // The link's lang= wins over the browser's language.
  await t.goto('#lang=en');
  await t.page.reload();
  await box.waitFor({ state: 'visible', timeout: 10000 });
  const en = await box.innerText();
  assert(en.includes('Attention Lab needs WebGL 2'), `message with lang=en: ${en}`);
}, { locale: 'zh-CN', allowConsoleErrors: true, allowFailedRequests: true });

test('i18n: Chinese on a HiDPI screen (devicePixelRatio 2): the larger font atlas builds and draws', async (t) => {
  await openLab(t, '#lang=zh&stage=mask&d_model=512&heads=8&seq_len=10');
  const s = await waitChinese(t);
  assert(s.ui_scale === 2 && s.fonts.cjk_glyphs >= 6763, `scale ${s.ui_scale}, glyphs ${s.fonts.cjk_glyphs}`);
  await parkMouse(t);
  await waitFrames(t, 3);
  await screenshotNotBlank(t, 'i18n-zh-hidpi.png');
  note(t, `dpr 2: request to atlas ${s.fonts.cjk_load_ms.toFixed(0)} ms`);
}, { locale: 'zh-CN', deviceScaleFactor: 2 });

test('i18n: switching while the configuration is invalid: the message and the kept trace change language', async (t) => {
  const s0 = await openLab(t, '#d_model=8&heads=2&stage=softmax');
  await typeInto(t, layoutRect(s0, 'knob:heads'), '3');
  const bad = await waitForState(t, (x) => x.errors.length > 0, { timeout: T, message: 'heads=3 is refused' });
  assert(bad.errors[0].param === 'heads' && /not divisible/.test(bad.errors[0].message), `error ${JSON.stringify(bad.errors)}`);
  await parkMouse(t);
  await clickRect(t, layoutRect(bad, 'lang:zh'));
  const zh = await waitChinese(t);
  assert(zh.errors.length === 1 && zh.errors[0].param === 'heads' && hasHanzi(zh.errors[0].message),
    `error in Chinese: ${JSON.stringify(zh.errors)}`);
  assert(zh.config.heads === 2, `the last good trace is kept: heads ${zh.config.heads}`);
  assert(zh.stages[6].checks.every((c) => hasHanzi(c.label)), `kept trace's checks: ${JSON.stringify(zh.stages[6].checks)}`);
  note(t, `${zh.errors[0].param}: ${zh.errors[0].message}`);
});

test('i18n: notes are said again in the new language (a bad link, a refused file)', async (t) => {
  await openLab(t, '#lang=en&heads=x&stage=mask');
  const en = await waitForState(t, (x) => x.notes.length > 0, { timeout: T, message: 'a note about heads=x' });
  assert(en.notes.some((n) => n.includes("heads='x'")) && !en.notes.some(hasHanzi), `notes ${en.notes}`);
  await clickRect(t, layoutRect(en, 'lang:zh'));
  const zh = await waitChinese(t);
  assert(zh.notes.length === en.notes.length && zh.notes.every(hasHanzi) && zh.notes.some((n) => n.includes("heads='x'")),
    `notes in Chinese: ${zh.notes}`);
  // A file over the 1 MiB limit is refused unread; its note follows a switch back to English.
  await dropFile(t, 'big.json', '{"d_model": 64}' + ' '.repeat((1 << 20) + 10));
  const big = await waitForState(t, (x) => x.notes.length === 1 && x.notes[0].startsWith('big.json'), { timeout: T, message: 'big.json refused' });
  assert(hasHanzi(big.notes[0]) && big.notes[0].includes('1 MiB'), `note ${big.notes[0]}`);
  await focusCanvas(t);
  await t.page.keyboard.press('l');
  const back = await waitForState(t, (x) => x.text_lang === 'en', { timeout: T, message: 'English again' });
  assert(/larger than the 1 MiB limit/.test(back.notes[0]), `note in English: ${back.notes[0]}`);
});
