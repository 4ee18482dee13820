// Tiny browser test harness on top of playwright-core.
//
//   import { test } from './lib/harness.mjs';
//   test('name', async (t) => { await t.goto(); ... }, { deviceScaleFactor: 2 });
//   (options: viewport, deviceScaleFactor, isMobile, hasTouch, locale: the browser context's)
//
// Every test runs in a fresh browser context + page. A test FAILS if, while it
// runs, the page logs a console error, throws an uncaught error ('pageerror'),
// a request fails ('requestfailed'), or the page requests anything from an
// origin other than its own. Per-test options can tolerate the expected noise:
//   allowConsoleErrors: true | RegExp     (console messages of type 'error')
//   allowFailedRequests: true | RegExp    (matched against the request URL)
// Page errors and foreign-origin requests are never tolerated.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { chromium } from 'playwright-core';

const registry = [];

/** Register a test. fn(t) gets the test context (see makeContext). */
export function test(name, fn, options = {}) {
  if (registry.some((r) => r.name === name)) throw new Error(`duplicate test name: ${name}`);
  registry.push({ name, fn, options });
}

export function registeredTests() {
  return registry.slice();
}

export class AssertionError extends Error {}

export function assert(condition, message) {
  if (!condition) throw new AssertionError(message || 'assertion failed');
}

// Flags verified on Debian 12 / Chromium 156. WebGL2 comes from SwiftShader via ANGLE.
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--use-gl=angle',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
];

export async function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
  });
}

function matches(allow, text) {
  if (allow === true) return true;
  if (allow instanceof RegExp) return allow.test(text);
  if (typeof allow === 'function') return !!allow(text);
  return false;
}

function sameOrigin(requestUrl, origin) {
  if (/^(data|about|chrome-error):/i.test(requestUrl)) return true;
  try {
    return new URL(requestUrl).origin === origin; // blob:http://host/... gives the inner origin
  } catch {
    return false;
  }
}

function slug(name) {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

async function makeContext(browser, cfg, entry) {
  const opts = entry.options;
  const context = await browser.newContext({
    viewport: opts.viewport || { width: 1280, height: 800 },
    deviceScaleFactor: opts.deviceScaleFactor || 1,
    locale: opts.locale || 'en-US',  // navigator.language: the page picks 中文 for zh*
    hasTouch: !!opts.hasTouch,        // a phone or tablet: touch events (touch.test.mjs)
    isMobile: !!opts.isMobile,
  });
  const page = await context.newPage();
  page.setDefaultTimeout(opts.actionTimeout || 15000);
  const origin = new URL(cfg.url).origin;
  const problems = [];
  const requests = [];
  const consoleLines = [];

  page.on('console', (msg) => {
    const text = msg.text();
    consoleLines.push(`[${msg.type()}] ${text}`);
    if (msg.type() === 'error' && !matches(opts.allowConsoleErrors, text)) {
      const loc = msg.location();
      problems.push(`console error: ${text}${loc && loc.url ? ` (${loc.url}:${loc.lineNumber})` : ''}`);
    }
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('request', (req) => {
    requests.push(req.url());
    if (!sameOrigin(req.url(), origin)) problems.push(`request to a foreign origin: ${req.url()}`);
  });
  page.on('requestfailed', (req) => {
    const why = req.failure() ? req.failure().errorText : 'failed';
    if (!matches(opts.allowFailedRequests, req.url())) problems.push(`request failed: ${req.url()} (${why})`);
  });

  const t = {
    name: entry.name,
    browser,
    context,
    page,
    url: cfg.url,
    origin,
    out: cfg.out,
    problems,
    requests,
    consoleLines,
    assert,
    /** Navigate to the page under test (optionally a relative path/hash). */
    async goto(rel = '') {
      const target = new URL(rel, cfg.url).toString();
      await page.goto(target, { waitUntil: 'load', timeout: 60000 });
    },
    /** Throw at once if the page already misbehaved (fail fast instead of timing out). */
    checkProblems() {
      if (problems.length) throw new AssertionError(problems.join('\n'));
    },
    /**
     * Poll fn (evaluated in the page, with arg) until it returns a truthy value;
     * returns that value. Fails early on page problems, or after timeout ms.
     */
    async waitFor(fn, { arg, timeout = 10000, interval = 50, message } = {}) {
      const deadline = Date.now() + timeout;
      let last;
      for (;;) {
        t.checkProblems();
        try {
          last = await page.evaluate(fn, arg);
        } catch (e) {
          last = undefined;
          if (Date.now() >= deadline) throw e;
        }
        if (last) return last;
        if (Date.now() >= deadline) {
          throw new AssertionError(`${message || 'condition'} not met within ${(timeout / 1000).toFixed(1)} s`);
        }
        await new Promise((r) => setTimeout(r, interval));
      }
    },
    /** Save an artefact into the output folder. */
    async save(fileName, data) {
      const p = path.join(cfg.out, fileName);
      await writeFile(p, data);
      return p;
    },
  };
  return t;
}

function withTimeout(promise, ms, name) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new AssertionError(`test timed out after ${ms / 1000} s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Run the registered tests. cfg = {url, out, grep?: RegExp, log?: fn}.
 * Returns {passed, failed, results}.
 */
export async function runTests(cfg) {
  const log = cfg.log || ((line) => console.log(line));
  await mkdir(cfg.out, { recursive: true });
  const selected = registry.filter((r) => !cfg.grep || cfg.grep.test(r.name));
  const results = [];
  let browser;
  try {
    browser = await launchBrowser();
  } catch (e) {
    log(`FAIL - launch chromium: ${e.message.split('\n')[0]}`);
    log(`0 passed, ${Math.max(1, selected.length)} failed`);
    return { passed: 0, failed: Math.max(1, selected.length), results };
  }
  for (const entry of selected) {
    const started = Date.now();
    let t;
    let error = null;
    try {
      t = await makeContext(browser, cfg, entry);
      await withTimeout(entry.fn(t), entry.options.timeout || 120000, entry.name);
      t.checkProblems();
    } catch (e) {
      error = e;
      if (t && t.problems.length && !(e instanceof AssertionError && e.message === t.problems.join('\n'))) {
        // Page problems are usually the root cause: report them first.
        error = new AssertionError(`${t.problems.join('\n')}\n(then: ${e.message})`);
      }
    }
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    if (!error) {
      log(`ok - ${entry.name} (${secs}s)`);
      results.push({ name: entry.name, ok: true, secs });
    } else {
      const lines = String(error && error.message ? error.message : error).split('\n').filter((l) => l.trim() !== '');
      log(`FAIL - ${entry.name}: ${lines[0]}`);
      for (const l of lines.slice(1)) log(`#   ${l}`);
      if (t) {
        try {
          const shot = path.join(cfg.out, `fail-${slug(entry.name)}.png`);
          await t.page.screenshot({ path: shot, timeout: 5000 });
          log(`#   screenshot: ${shot}`);
        } catch { /* page may be gone */ }
        const tail = t.consoleLines.slice(-15);
        if (tail.length) {
          log('#   last console lines:');
          for (const l of tail) log(`#     ${l}`);
        }
      }
      results.push({ name: entry.name, ok: false, secs, error: lines.join('\n') });
    }
    if (t) await t.context.close().catch(() => {});
  }
  await browser.close().catch(() => {});
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  log(`${passed} passed, ${failed} failed`);
  return { passed, failed, results };
}
