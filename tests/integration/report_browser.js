#!/usr/bin/env node
// Opens an hpo report in Debian's headless Chromium (through puppeteer-core
// from tools/report/node_modules) and prints what a test needs to judge it,
// as JSON: JavaScript errors, network requests, each section's charts and
// their sizes, and the text of untrusted fields. Saves a screenshot.
// Usage: report_browser.js REPORT.html SCREENSHOT.png [--no-webgl] [--pick PARAM] [--section ID]
//   --no-webgl: a browser without WebGL (as with a GPU blocklist or a
//               remote desktop); --pick PARAM: tick PARAM in the page's
//               parameter picker and report the redrawn page; --section
//               ID: the screenshot shows section ID alone.
'use strict';
const path = require('path');
const puppeteer = require(path.join(__dirname, '..', '..', 'tools', 'report', 'node_modules', 'puppeteer-core'));

async function main() {
  const [file, screenshot, ...options] = process.argv.slice(2);
  const noWebgl = options.includes('--no-webgl');
  const pick = options.includes('--pick') ? options[options.indexOf('--pick') + 1] : null;
  const section = options.includes('--section') ? options[options.indexOf('--section') + 1] : null;
  const url = 'file://' + path.resolve(file);
  const browser = await puppeteer.launch({
    executablePath: process.env.HPO_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    // WebGL (parcoords) through SwiftShader: headless Chromium has no GPU.
    args: ['--no-sandbox', '--window-size=1280,900'].concat(noWebgl ?
      ['--disable-gpu', '--disable-webgl', '--disable-3d-apis'] :
      ['--enable-unsafe-swiftshader', '--use-angle=swiftshader']),
  });
  const errors = [], requests = [];
  try {
    const page = await browser.newPage();
    await page.setViewport({width: 1280, height: 900});
    page.on('console', m => { if (m.type() === 'error' || m.type() === 'warn') errors.push(m.type() + ': ' + m.text()); });
    page.on('pageerror', e => errors.push('pageerror: ' + e.message));
    page.on('request', r => { if (r.url() !== url) requests.push(r.url()); });
    page.on('requestfailed', r => { if (r.url() !== url) requests.push('failed: ' + r.url()); });
    await page.goto(url, {waitUntil: 'load', timeout: 60000});
    await page.waitForFunction(() => document.body.dataset.rendered, {timeout: 60000});
    if (pick !== null) {
      // By dataset, not a selector: the name is the study's text.
      const ticked = await page.evaluate(name => {
        const box = [...document.querySelectorAll('.picker input')].find(i => i.dataset.param === name);
        if (box) box.click();
        return !!box;
      }, pick);
      if (!ticked) throw new Error('no picker box for ' + pick);
      await page.waitForFunction(() => document.body.dataset.redrawn, {timeout: 60000});
    }
    const result = await page.evaluate(() => {
      const size = e => { const r = e.getBoundingClientRect(); return [Math.round(r.width), Math.round(r.height)]; };
      // What Plotly was given, for small charts: each trace's axis and
      // points, and the y axes' vertical extents (domains).
      const traces = c => (c.data || []).map(t => ({
        name: t.name, type: t.type, mode: t.mode, yaxis: t.yaxis || 'y',
        x: t.x && t.x.length <= 500 ? [...t.x] : null, y: t.y && t.y.length <= 500 ? [...t.y] : null,
        text: t.text && t.text.length <= 500 ? [...t.text] : null}));
      const axes = c => {
        const out = {};
        Object.keys(c._fullLayout || {}).filter(k => /^[xy]axis\d*$/.test(k)).forEach(k => {
          const a = c._fullLayout[k];
          out[k] = {domain: a.domain, range: a.range, type: a.type, title: a.title && a.title.text};
        });
        return out;
      };
      // Where each label of a parallel-coordinates axis is (the corners of
      // its box, tilted as drawn), and its ticks.
      const corners = t => {
        const b = t.getBBox(), m = t.getScreenCTM();
        return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]].map(
          ([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
      };
      const parcoords = c => [...c.querySelectorAll('.y-axis')].map(g => {
        const title = g.querySelector('.axis-title');
        return {title: title.textContent, corners: corners(title),
                ticks: [...g.querySelectorAll('.tick text')].map(t => t.textContent),
                extents: [...g.querySelectorAll('.axis-extent text')].map(t => t.textContent).filter(t => t)};
      });
      // Text that lies outside its chart's box, or under the mode bar
      // (Plotly's buttons over the top right corner), is cut off.
      const outside = c => {
        const box = c.getBoundingClientRect();
        const modebar = c.querySelector('.modebar');
        const bar = modebar ? modebar.getBoundingClientRect() : null;
        const under = r => bar && bar.width && r.left < bar.right && r.right > bar.left && r.top < bar.bottom && r.bottom > bar.top;
        return [...c.querySelectorAll('svg.main-svg text')].filter(t => t.textContent).filter(t => {
          const r = t.getBoundingClientRect();
          return r.width && (r.top < box.top - 1 || r.bottom > box.bottom + 1 || r.left < box.left - 1 ||
                             r.right > box.right + 1 || under(r));
        }).map(t => t.textContent);
      };
      const sections = {};
      document.querySelectorAll('section[data-section]').forEach(s => {
        sections[s.dataset.section] = {
          charts: [...s.querySelectorAll('.chart')].map(c => ({size: size(c), svg: c.querySelectorAll('svg.main-svg').length,
                                                             marks: c.querySelectorAll('.point, path.js-line, .bars path, .parcoords-lines, .trace').length,
                                                             points: c.querySelectorAll('.point').length,
                                                             fills: [...c.querySelectorAll('.point')].map(p => p.style.fill),
                                                             colorbars: c.querySelectorAll('.colorbar').length,
                                                             traces: traces(c), axes: axes(c),
                                                             rect: (r => [r.left + scrollX, r.top + scrollY, r.width, r.height])(c.getBoundingClientRect()),
                                                             yticks: [...c.querySelectorAll('.ytick text')].map(t => t.textContent),
                                                             parcoords: parcoords(c), outside: outside(c)})),
          tables: [...s.querySelectorAll('table')].map(size),
          empty: [...s.querySelectorAll('.empty')].map(e => e.textContent),
          notes: [...s.querySelectorAll('.note')].map(e => e.textContent),
          pre: [...s.querySelectorAll('pre')].map(e => e.textContent),
          size: size(s.querySelector('.body')),
        };
      });
      return {
        rendered: document.body.dataset.rendered,
        title: document.title,
        study: document.querySelector('.study-name').textContent,
        summary: document.getElementById('summary').textContent,
        pwned: window.__pwned === undefined ? null : String(window.__pwned),
        scripts: document.scripts.length,
        webgl_box: document.body.innerText.includes('WebGL is not supported'),
        picker: [...document.querySelectorAll('.picker input')].map(i => [i.dataset.param, i.checked]),
        sections: sections,
      };
    });
    // --section ID: the picture of that section alone (docs' screenshots).
    const shown = section !== null ? await page.$('#' + section) : null;
    if (section !== null && !shown) throw new Error('no section ' + section);
    await (shown || page).screenshot(shown ? {path: screenshot} : {path: screenshot, fullPage: true});
    result.errors = errors;
    result.requests = requests;
    process.stdout.write(JSON.stringify(result) + '\n');
  } finally {
    await browser.close();
  }
}

main().catch(e => { console.error(e); process.exit(1); });
