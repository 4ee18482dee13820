// compress.test.mjs — the page is served compressed (issue #28 item 5): the build writes
// .br and .gz beside the wasm, the js, the font and index.html, and scripts/serve.py (the
// server of scripts/run.sh and of this suite) sends them by the request's Accept-Encoding,
// the bytes decoding to the very file; the browser's own load takes the compressed files.
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

import { test, assert } from './lib/harness.mjs';
import { note, openLab } from './lib/lab.mjs';

function get(url, acceptEncoding) {
  return new Promise((resolve, reject) => {
    const headers = acceptEncoding === null ? {} : { 'Accept-Encoding': acceptEncoding };
    request(url, { headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject).end();
  });
}

const FILES = ['attention_lab.wasm', 'attention_lab.js', 'lab_cjk.otf', 'index.html'];

test('compressed files: br and gzip by Accept-Encoding, each decoding to the plain file', async (t) => {
  for (const name of FILES) {
    const url = new URL(name === 'index.html' ? './' : name, t.url).toString();
    const plain = await get(url, null);
    assert(plain.status === 200, `${name}: HTTP ${plain.status}`);
    assert(!plain.headers['content-encoding'], `${name} without Accept-Encoding came ${plain.headers['content-encoding']}`);
    assert(Number(plain.headers['content-length']) === plain.body.length, `${name}: Content-Length`);
    const br = await get(url, 'gzip, deflate, br');
    const gz = await get(url, 'gzip, br;q=0');
    assert(br.headers['content-encoding'] === 'br', `${name}: 'gzip, deflate, br' got ${br.headers['content-encoding']}`);
    assert(gz.headers['content-encoding'] === 'gzip', `${name}: 'gzip, br;q=0' got ${gz.headers['content-encoding']}`);
    for (const [res, decode] of [[br, brotliDecompressSync], [gz, gunzipSync]]) {
      assert(decode(res.body).equals(plain.body), `${name}: ${res.headers['content-encoding']} does not decode to the file`);
      assert(res.headers['content-type'] === plain.headers['content-type'],
             `${name}: type ${res.headers['content-type']} vs ${plain.headers['content-type']}`);
      assert(res.headers.vary === 'Accept-Encoding', `${name}: Vary is ${res.headers.vary}`);
      assert(Number(res.headers['x-decoded-length']) === plain.body.length, `${name}: X-Decoded-Length`);
    }
    assert(br.body.length < plain.body.length, `${name}: br ${br.body.length} B is not smaller than ${plain.body.length} B`);
    note(t, `${name}: ${plain.body.length} B, br ${br.body.length} B, gzip ${gz.body.length} B`);
  }
  const wasm = await get(new URL('attention_lab.wasm', t.url).toString(), 'identity');
  assert(wasm.headers['content-type'] === 'application/wasm', `wasm type ${wasm.headers['content-type']}`);
});

test('compressed files: the browser loads the page from them', async (t) => {
  const encodings = {};
  t.page.on('response', async (res) => {
    const name = new URL(res.url()).pathname.split('/').pop() || 'index.html';
    encodings[name] = (await res.allHeaders())['content-encoding'] || 'identity';
  });
  const s = await openLab(t, '#lang=zh');
  assert(s.stages.length === 10, `${s.stages.length} stages`);
  for (let waited = 0; !encodings['lab_cjk.otf']; waited += 50) {
    assert(waited < 30000, 'the Chinese font was not fetched within 30 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  for (const name of FILES) {
    assert(encodings[name] && encodings[name] !== 'identity', `${name} came ${encodings[name] || 'not at all'}`);
  }
  note(t, `encodings: ${JSON.stringify(encodings)}`);
});
