// Draws an hpo report from the JSON in #hpo-data (see report_data.h) with
// Plotly.js. Everything from the study (names, choices, stderr) is
// untrusted text: it enters the DOM through textContent, and Plotly, which
// reads tags and entities in its labels, only gets it through esc().
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('hpo-data').textContent);
  const COLORS = {COMPLETE: '#1f77b4', PRUNED: '#ff7f0e', FAIL: '#d62728', OOM: '#9467bd',
                  RUNNING: '#2ca02c', WAITING: '#7f7f7f'};
  const STATES = Object.keys(COLORS);
  const PLOT_CONFIG = {displaylogo: false, responsive: true};
  // Beyond this many points the history draws with WebGL instead of SVG.
  // Browsers allow only a few WebGL contexts per page, so the many small
  // charts (slices, metrics) stay SVG and show a sample instead.
  const SVG_POINTS = 3000;
  const SAMPLE_POINTS = 2000;
  // Lines the parallel coordinates draw in SVG when there is no WebGL.
  const SVG_LINES = 500;
  const plots = [];
  const trials = data.trials;
  const maximize = data.direction === 'maximize';
  const byNumber = new Map(trials.map(t => [t.n, t]));
  const complete = trials.filter(t => t.state === 'COMPLETE' && t.value !== null);
  // Without WebGL (disabled, blocked, a remote desktop) Plotly's WebGL
  // traces draw only a "WebGL is not supported" box: use SVG instead.
  const webgl = (() => {
    try {
      const gl = document.createElement('canvas').getContext('webgl');
      // A page gets only a few WebGL contexts: give the probe's back.
      const lose = gl && gl.getExtension('WEBGL_lose_context');
      if (lose) lose.loseContext();
      return !!gl;
    } catch (e) {
      return false;
    }
  })();
  // The parameters the parallel coordinates and slices draw (the reader
  // changes them in the page's picker; see param_choice.h).
  const picked = new Set(data.shown_params ? data.shown_params.names : data.params.map(p => p.name));

  function esc(s) {
    return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  }
  function body(id) { return document.querySelector('#' + id + ' .body'); }
  // Empties a section to draw it again, freeing its charts' memory.
  function clear(id) {
    body(id).querySelectorAll('.js-plotly-plot').forEach(div => Plotly.purge(div));
    body(id).textContent = '';
  }
  function element(parent, tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    parent.appendChild(e);
    return e;
  }
  function note(id, text) { return element(body(id), 'p', 'note', text); }
  function empty(id, text) { return element(body(id), 'div', 'empty', text); }
  // A chart at the end of section `id` (or in `parent`, a grid cell).
  function chart(id, traces, layout, cls, parent) {
    const div = element(parent || body(id), 'div', 'chart' + (cls ? ' ' + cls : ''));
    // A chart that sets its height gets a box that tall (the CSS's is fixed).
    if (layout.height) div.style.height = layout.height + 'px';
    const base = {margin: {l: 60, r: 20, t: 30, b: 50}, hovermode: 'closest'};
    plots.push(Plotly.newPlot(div, traces, Object.assign(base, layout), PLOT_CONFIG));
    return div;
  }
  // A new cell in section `id`'s grid of small charts, two to a row.
  function cell(id) {
    const grid = body(id).querySelector('.grid') || element(body(id), 'div', 'grid');
    return element(grid, 'div', 'cell');
  }
  function scatterType(n) { return n > SVG_POINTS && webgl ? 'scattergl' : 'scatter'; }
  function better(a, b) { return maximize ? a > b : a < b; }
  // At most `limit` of trials `ts` (with values), as downsample.h picks:
  // the best half, then evenly spaced others; in number order.
  function sample(ts, limit) {
    if (ts.length <= limit) return ts;
    const keep = new Set(ts.slice().sort((a, b) => (better(a.value, b.value) ? -1 : better(b.value, a.value) ? 1 : 0))
                         .slice(0, Math.floor(limit / 2)));
    const others = ts.filter(t => !keep.has(t));
    const spread = limit - keep.size;
    for (let k = 0; k < spread; k++) keep.add(others[Math.floor(k * others.length / spread)]);
    return ts.filter(t => keep.has(t));
  }
  function sampleNote(id, shown, total, what) {
    if (shown < total) {
      note(id, what + ' show ' + shown + ' of ' + total + ' trials: the best ' + Math.floor(shown / 2) +
           ' and evenly spaced others.');
    }
  }
  function metricTitle() { return esc(data.metric) + ' (' + data.direction + ')'; }
  function hover(t) { return 'trial ' + t.n + '<br>' + t.state; }
  // A trial's value as text. JSON has no infinities: the data gives them
  // (and NaN) as null with a value_text.
  function valueText(t) { return t.value !== null ? String(t.value) : (t.value_text || 'none'); }
  // A parameter's value as the user wrote it: a choice's label, or the number.
  function external(param, v) {
    if (v === null) return null;
    return param.type === 'categorical' ? esc(param.choices[v]) : v;
  }

  function summary() {
    const counts = {};
    trials.forEach(t => { counts[t.state] = (counts[t.state] || 0) + 1; });
    const parts = STATES.filter(s => counts[s]).map(s => counts[s] + ' ' + s);
    const goals = data.pareto ? 'Objectives: ' + data.pareto.metrics.map((m, i) => m + ', ' + data.pareto.directions[i]).join('; ') +
        ' (the charts above show the first; section 11 all of them)'
      : 'Objective: ' + data.metric + ', ' + data.direction;
    let text = trials.length + ' trial(s)' + (parts.length ? ': ' + parts.join(', ') : '') + '. ' + goals + '.';
    if (data.best && data.pareto) {
      text += ' Pareto front: ' + data.pareto.front_size + ' trial(s); section 9 shows its knee, trial ' + data.best.n + '.';
    } else if (data.best) {
      text += ' Best: trial ' + data.best.n + ', ' + data.metric + ' = ' + valueText(data.best) + '.';
      if (data.best.value === null) text += ' An infinite value has no place on a value axis: the charts show it in the history\'s "no value" row.';
    }
    const outside = trials.filter(t => t.infeasible).length;  // COMPLETE ones only (report_data.cc)
    if (outside) text += ' ' + outside + ' COMPLETE trial(s) are outside the study\'s constraints: none of them can be the best.';
    const orphans = trials.filter(t => t.orphan).length;
    if (counts.RUNNING > orphans) text += ' The study is still running: this is a snapshot.';
    if (orphans) {
      text += ' ' + orphans + ' RUNNING trial(s) belong to an hpo run that has ended (its process is gone): ' +
          'the next hpo run takes them over.';
    }
    document.getElementById('summary').textContent = text;
  }

  function history() {
    if (!trials.length) return empty('history', 'No trials yet.');
    // Trials without a finite value (FAIL, OOM, RUNNING, ±inf) get a row of
    // their own under the value axis: at any height on it they would read as
    // a value, and at the bottom of a minimize study as the best one.
    const traces = [];
    // Trials outside the study's constraints: drawn apart, never the best.
    const infeasible = trials.filter(t => t.infeasible && t.value !== null);
    STATES.forEach(state => {
      const ts = trials.filter(t => t.state === state);
      const valued = ts.filter(t => t.value !== null && !t.infeasible), none = ts.filter(t => t.value === null);
      if (valued.length) {
        traces.push({type: scatterType(valued.length), mode: 'markers', name: state, legendgroup: state,
                     x: valued.map(t => t.n), y: valued.map(t => t.value), text: valued.map(hover),
                     hoverinfo: 'x+y+text', marker: {color: COLORS[state], size: 7}});
      }
      if (none.length) {
        traces.push({type: scatterType(none.length), mode: 'markers', name: state, legendgroup: state,
                     showlegend: !valued.length, yaxis: 'y2', x: none.map(t => t.n), y: none.map(() => 0),
                     text: none.map(t => hover(t) + '<br>value: ' + valueText(t)), hoverinfo: 'x+text',
                     marker: {color: COLORS[state], size: 7, symbol: 'x'}});
      }
    });
    if (infeasible.length) {
      traces.push({type: scatterType(infeasible.length), mode: 'markers', name: 'infeasible',
                   x: infeasible.map(t => t.n), y: infeasible.map(t => t.value),
                   text: infeasible.map(t => hover(t) + ', outside the constraints'), hoverinfo: 'x+y+text',
                   marker: {color: '#aaaaaa', size: 7, symbol: 'circle-open'}});
    }
    let best = null;
    const bx = [], by = [];
    complete.filter(t => !t.infeasible).forEach(t => {
      if (best === null || better(t.value, best)) best = t.value;
      bx.push(t.n);
      by.push(best);
    });
    if (bx.length) traces.push({type: 'scatter', mode: 'lines', name: 'best so far', x: bx, y: by,
                                line: {color: '#111', shape: 'hv'}});
    chart('history', traces, {xaxis: {title: {text: 'trial'}, anchor: 'y2'},
                              yaxis: {title: {text: metricTitle()}, domain: [0.16, 1]},
                              yaxis2: {domain: [0, 0.08], range: [-1, 1], tickvals: [0], ticktext: ['no value'],
                                       fixedrange: true, zeroline: false, showgrid: false}});
    note('history', 'Each trial\'s objective. Trials without a value (FAIL, OOM, RUNNING, or an infinite one) ' +
         'are x marks in the "no value" row under the chart.' +
         (infeasible.length ? ' ' + infeasible.length + ' trial(s) outside the study\'s constraints are grey ' +
          'circles ("infeasible"): the best so far leaves them out, as hpo best does.' : ''));
  }

  function curves() {
    const c = data.curves;
    if (!c.total) return empty('curves', 'No trial has reported intermediate values yet.');
    const traces = [];
    STATES.forEach(state => {
      const ss = c.series.filter(s => s.state === state);
      if (!ss.length) return;
      // One trace per state, curves separated by gaps: fast with hundreds of curves.
      const x = [], y = [], text = [];
      ss.forEach(s => {
        s.steps.forEach((step, i) => { x.push(step); y.push(s.values[i]); text.push('trial ' + s.n); });
        x.push(null); y.push(null); text.push('');
      });
      traces.push({type: 'scatter', mode: 'lines', name: state, legendgroup: state, x: x, y: y, text: text,
                   line: {color: COLORS[state], width: 1}, opacity: 0.7, connectgaps: false});
      // A curve of one step has no line to draw (a live report after the
      // first epoch): mark its point.
      const single = ss.filter(s => s.steps.length === 1);
      if (single.length) {
        traces.push({type: 'scatter', mode: 'markers', name: state, legendgroup: state, showlegend: false,
                     x: single.map(s => s.steps[0]), y: single.map(s => s.values[0]),
                     text: single.map(s => 'trial ' + s.n), marker: {color: COLORS[state], size: 6}});
      }
    });
    const pruned = c.series.filter(s => s.state === 'PRUNED' && s.steps.length);
    if (pruned.length) {
      traces.push({type: 'scatter', mode: 'markers', name: 'pruned here',
                   x: pruned.map(s => s.steps[s.steps.length - 1]), y: pruned.map(s => s.values[s.values.length - 1]),
                   text: pruned.map(s => 'trial ' + s.n + ' pruned'),
                   marker: {color: COLORS.PRUNED, symbol: 'x', size: 9}});
    }
    chart('curves', traces, {xaxis: {title: {text: 'step'}}, yaxis: {title: {text: esc(data.metric)}}});
    if (c.series.length < c.total) {
      note('curves', 'Showing ' + c.series.length + ' of ' + c.total + ' curves: the best ' +
           Math.floor(c.series.length / 2) + ' and evenly spaced others.');
    }
  }

  // A number as a tick label: short, and in exponent form below 0.01
  // (1e-3, 3e-3, 0.01) where plain decimals get long.
  function numberText(v) {
    const a = Math.abs(v);
    const rounded = parseFloat(v.toPrecision(3));
    return a !== 0 && (a < 0.01 || a >= 1e5) ? rounded.toExponential().replace('e+', 'e') : String(rounded);
  }
  // Ticks for an axis in log10 units from lo to hi, labelled with the real
  // values (0.001, not -3): its ends, and between them 1, 2, 5 times powers
  // of ten over up to two decades, 1 and 3 up to five, powers of ten
  // (every k-th) beyond. Labelled ticks make Plotly's axis line run from
  // the first to the last and a drag snap to them, hence the ends and the
  // close steps.
  function logTicks(lo, hi) {
    const span = hi - lo;
    const mantissas = span <= 2 ? [1, 2, 5] : span <= 5 ? [1, 3] : [1];
    const every = Math.max(1, Math.ceil(span / 8));
    // Nice values too close to an end would write over its label.
    const inner = [];
    for (let e = Math.floor(lo); e <= Math.ceil(hi); e++) {
      if (mantissas.length === 1 && e % every !== 0) continue;
      mantissas.forEach(m => {
        const v = Math.log10(m) + e;
        if (v - lo > 0.05 * span && hi - v > 0.05 * span) inner.push(v);
      });
    }
    if (!inner.length && span > 0) inner.push((lo + hi) / 2);
    const tickvals = span > 0 ? [lo].concat(inner, [hi]) : [lo];
    return {tickvals: tickvals, ticktext: tickvals.map(v => numberText(Math.pow(10, v)))};
  }
  // Section 5's ranking, most important first, then the unranked.
  function rankedParams() {
    const ranked = data.importance && data.importance.params ? data.importance.params.map(p => p.name) : [];
    return ranked.concat(data.params.map(p => p.name).filter(n => !ranked.includes(n)));
  }
  // The indices of the parameters drawn, in the study's order.
  function pickedParams() { return data.params.map((p, i) => i).filter(i => picked.has(data.params[i].name)); }
  // What the parallel coordinates and slices leave out, and how to show it.
  function hiddenNote(id) {
    const hidden = data.params.length - picked.size;
    if (!hidden) return;
    const by = data.shown_params && data.shown_params.by;
    const why = by === 'importance' ? 'the ' + picked.size + ' most important (section 5)' :
        by === '--params' ? 'those named by hpo report --params' : 'the ones chosen';
    note(id, hidden + ' of ' + data.params.length + ' parameters are hidden: these charts draw ' + why +
         '. Show others with "Parameters drawn" above section 3, or write the page with ' +
         'hpo report --params a,b,c.');
  }
  // Checkboxes over section 3 that choose the parameters sections 3 and 4
  // draw. Names are the study's text: they go in as text, never as HTML.
  function picker() {
    if (data.params.length < 2) return;
    const section = document.getElementById('parallel');
    const box = document.createElement('details');
    box.className = 'picker';
    section.insertBefore(box, section.querySelector('.body'));
    const summary = element(box, 'summary');
    const list = element(box, 'div', 'choices');
    const importance = new Map((data.importance && data.importance.params || []).map(p => [p.name, p.importance]));
    const boxes = rankedParams().map(name => {
      const label = element(list, 'label');
      const input = element(label, 'input');
      input.type = 'checkbox';
      input.checked = picked.has(name);
      input.dataset.param = name;
      element(label, 'span', '', ' ' + name);
      if (importance.has(name)) element(label, 'span', 'importance', ' ' + importance.get(name).toFixed(3));
      return input;
    });
    const show = () => {
      summary.textContent = 'Parameters drawn: ' + picked.size + ' of ' + data.params.length + ' (choose)';
    };
    const redraw = () => {
      show();
      const from = plots.length;
      clear('parallel');
      parallel();
      clear('slice');
      slices();
      // For tests (report_browser.js --pick): the new charts are drawn.
      Promise.all(plots.slice(from)).then(() => { document.body.dataset.redrawn = 'yes'; });
    };
    boxes.forEach(input => input.addEventListener('change', () => {
      if (input.checked) picked.add(input.dataset.param); else picked.delete(input.dataset.param);
      redraw();
    }));
    const all = element(list, 'button', '', 'all');
    all.type = 'button';
    all.addEventListener('click', () => {
      boxes.forEach(input => { input.checked = true; picked.add(input.dataset.param); });
      redraw();
    });
    show();
  }

  // An axis label of at most 40 characters: a longer name would need a
  // top margin of hundreds of pixels once tilted (the picker and the
  // slice plots give it whole).
  function axisLabel(name) { return esc(name.length > 40 ? name.slice(0, 39) + '\u2026' : name); }
  // One parallel-coordinates axis for parameter p over `values`.
  function dimension(p, values) {
    // A trial without the parameter (its condition failed) sits at an
    // '(absent)' position below the axis's values.
    const absent = values.some(v => v === null);
    const dim = {label: axisLabel(p.name)};
    if (p.type === 'categorical') {
      dim.tickvals = p.choices.map((_, k) => k);
      // Parcoords writes tick labels as plain text (no tags, no entities).
      dim.ticktext = p.choices.slice();
      if (absent) {
        dim.tickvals.unshift(-1);
        dim.ticktext.unshift('(absent)');
        values = values.map(v => v === null ? -1 : v);
      }
      dim.range = [absent ? -1 : 0, Math.max(p.choices.length - 1, 1)];
    } else {
      if (p.log) {
        // Drawn in log10 units, labelled with the real values.
        values = values.map(v => v === null ? null : Math.log10(v));
        const present = values.filter(v => v !== null);
        if (present.length) Object.assign(dim, logTicks(Math.min(...present), Math.max(...present)));
        dim.label = axisLabel(p.name) + ' (log)';
      }
      if (absent) {
        const present = values.filter(v => v !== null);
        const lo = present.reduce((a, b) => Math.min(a, b), Infinity);
        const hi = present.reduce((a, b) => Math.max(a, b), -Infinity);
        const below = present.length ? lo - Math.max(hi - lo, 1e-9) * 0.15 : 0;
        values = values.map(v => v === null ? below : v);
        dim.label += ' (bottom: absent)';
        if (dim.tickvals) {
          dim.tickvals = [below].concat(dim.tickvals);
          dim.ticktext = ['(absent)'].concat(dim.ticktext);
        }
      }
    }
    dim.values = values;
    return dim;
  }
  // Labels wider than the space between two axes would overlap: tilted,
  // parallel labels are spacing * sin(angle) apart, which must exceed a
  // line of text (about 7 px a character, 16 px a line).
  function labelAngle(dims) {
    const spacing = 1000 / Math.max(dims.length - 1, 1);
    const widest = Math.max(...dims.map(d => d.label.length)) * 7;
    return widest < spacing * 0.9 ? 0 : spacing * Math.SQRT1_2 >= 18 ? -45 : -90;
  }

  function parallel() {
    // Trials lacking a parameter (its condition failed) are drawn too: at
    // an 'absent' position below that axis.
    const shown = data.parallel.trials.map(n => byNumber.get(n));
    if (!data.params.length) return empty('parallel', 'The study has no parameters.');
    if (!shown.length) return empty('parallel', 'No COMPLETE trial yet.');
    if (!picked.size) return empty('parallel', 'No parameter chosen: tick some in "Parameters drawn" above.');
    const dims = pickedParams().map(i => dimension(data.params[i], shown.map(t => t.p[i])));
    const anyAbsent = pickedParams().some(i => shown.some(t => t.p[i] === null));
    const values = shown.map(t => t.value);
    dims.push({label: axisLabel(data.metric), values: values});
    const angle = labelAngle(dims);
    // A tilted label reaches up by its width times the angle's sine.
    const top = angle ? 50 + Math.ceil(Math.max(...dims.map(d => d.label.length)) * 7 * Math.sin(-angle * Math.PI / 180)) : 60;
    let text;
    if (webgl) {
      chart('parallel', [{type: 'parcoords', dimensions: dims, labelangle: angle, labelside: 'top',
                          line: {color: values, colorscale: 'Viridis', reversescale: !maximize, showscale: true}}],
            {margin: {l: 80, r: 80, t: top, b: 30}, height: 360 + top});
      text = 'One line per COMPLETE trial, coloured by ' + data.metric + '. Drag along an axis to filter.';
    } else {
      parallelLines(dims, values, angle, top);
      text = 'One line per COMPLETE trial, coloured by ' + data.metric + '. This browser has no WebGL, which ' +
          'the interactive chart needs: drawn as plain lines' +
          (shown.length > SVG_LINES ? ', ' + SVG_LINES + ' of them (the best half and evenly spaced others)' : '') + '.';
    }
    if (anyAbsent) text += ' A trial without a parameter (its condition failed) sits at that axis\'s absent position.';
    if (shown.length < data.parallel.total) {
      text += ' Showing ' + shown.length + ' of ' + data.parallel.total + ' trials: the best half and evenly spaced others.';
    }
    note('parallel', text);
    hiddenNote('parallel');
  }

  // The parallel coordinates without WebGL: each trial a polyline over
  // the axes (scaled to 0..1), in a few colour bands of the objective,
  // with each axis's ticks written beside it.
  function parallelLines(dims, values, angle, top) {
    const idx = sample(values.map((v, k) => ({value: v, k: k})), SVG_LINES).map(s => s.k);
    const scale = dims.map(d => {
      const lo = d.range ? d.range[0] : Math.min(...d.values), hi = d.range ? d.range[1] : Math.max(...d.values);
      return v => (hi > lo ? (v - lo) / (hi - lo) : 0.5);
    });
    const lo = Math.min(...values), hi = Math.max(...values), bands = 6;
    const band = v => (hi > lo ? Math.min(bands - 1, Math.floor((v - lo) / (hi - lo) * bands)) : 0);
    const viridis = ['#440154', '#414487', '#2a788e', '#22a884', '#7ad151', '#fde725'];
    const traces = [];
    for (let b = 0; b < bands; b++) {
      const x = [], y = [];
      idx.filter(k => band(values[k]) === b).forEach(k => {
        dims.forEach((d, j) => { x.push(j); y.push(scale[j](d.values[k])); });
        x.push(null); y.push(null);
      });
      if (!x.length) continue;
      const from = lo + (hi - lo) * b / bands, to = lo + (hi - lo) * (b + 1) / bands;
      traces.push({type: 'scatter', mode: 'lines', x: x, y: y, hoverinfo: 'skip', opacity: 0.6,
                   name: esc(data.metric) + ' ' + numberText(from) + ' to ' + numberText(to),
                   line: {width: 1, color: viridis[maximize ? b : bands - 1 - b]}});
    }
    const annotations = [], shapes = [];
    dims.forEach((d, j) => {
      shapes.push({type: 'line', x0: j, x1: j, y0: 0, y1: 1, line: {color: '#444', width: 1}});
      // Tilted, a label starts at its axis and rises to the right, as in parcoords.
      annotations.push({x: j, y: 1, yref: 'paper', yshift: 6, text: d.label, showarrow: false, yanchor: 'bottom',
                        xanchor: angle ? 'left' : 'center', textangle: angle});
      // Categorical choices and log ticks as labelled; others at their ends.
      const ticks = d.tickvals ? d.tickvals.map((v, k) => [v, String(d.ticktext[k])]) :
          [Math.min(...d.values), Math.max(...d.values)].map(v => [v, numberText(v)]);
      ticks.forEach(([v, label]) => annotations.push({x: j, y: scale[j](v), text: esc(label), showarrow: false,
                                                      xanchor: 'right', xshift: -4, font: {size: 10}}));
    });
    chart('parallel', traces, {xaxis: {visible: false, range: [-0.6, dims.length - 0.6]},
                               yaxis: {visible: false, range: [-0.05, 1.05]}, shapes: shapes, annotations: annotations,
                               margin: {l: 20, r: 20, t: top, b: 20}, height: 360 + top, hovermode: false});
  }

  function slices() {
    if (!data.params.length) return empty('slice', 'The study has no parameters.');
    if (!complete.length) return empty('slice', 'No COMPLETE trial yet.');
    if (!picked.size) return empty('slice', 'No parameter chosen: tick some in "Parameters drawn" above section 3.');
    const shown = sample(complete, SAMPLE_POINTS);
    pickedParams().forEach(i => {
      const p = data.params[i];
      const ts = shown.filter(t => t.p[i] !== null);
      const xaxis = {title: {text: esc(p.name)}};
      if (p.log) xaxis.type = 'log';
      if (p.type === 'categorical') {
        xaxis.type = 'category';
        xaxis.categoryorder = 'array';
        xaxis.categoryarray = p.choices.map(esc);
      }
      chart('slice', [{type: 'scatter', mode: 'markers', x: ts.map(t => external(p, t.p[i])),
                       y: ts.map(t => t.value), text: ts.map(t => 'trial ' + t.n),
                       // Plotly's Blues runs dark to light: reversed, later trials are darker.
                       marker: {color: ts.map(t => t.n), colorscale: 'Blues', reversescale: true, showscale: true,
                                colorbar: {title: {text: 'trial'}, thickness: 10}, size: 7,
                                line: {color: '#444', width: 0.5}}}],
            {xaxis: xaxis, yaxis: {title: {text: esc(data.metric)}}, showlegend: false}, 'small', cell('slice'));
    });
    note('slice', 'The objective of each COMPLETE trial against one parameter; darker points are later trials (the colour bar gives the trial number). ' +
         'Log parameters on log axes, choices in their declared order.');
    sampleNote('slice', shown.length, complete.length, 'The slice plots');
    hiddenNote('slice');
  }

  function importance() {
    const imp = data.importance;
    if (!imp || !imp.params || !imp.params.length) {
      return empty('importance', (imp && imp.why) || 'Not computed.');
    }
    const ps = imp.params.slice().reverse();
    // A row of 22 px for each name: in a fixed height, Plotly labels only
    // every other one of 30. dtick 1 writes every name; a top margin of 30
    // keeps the top bar's label from under Plotly's mode bar.
    // A conditional parameter is ranked over the trials that hold it: say how many.
    const label = p => esc(p.name) + (p.trials < imp.trials ? ' (' + p.trials + ' trials)' : '');
    chart('importance', [{type: 'bar', orientation: 'h', x: ps.map(p => p.importance), y: ps.map(label),
                          marker: {color: '#1f77b4'}, text: ps.map(p => p.importance.toFixed(3)), textposition: 'auto',
                          cliponaxis: false}],
          {xaxis: {title: {text: ps.every(p => p.trials === imp.trials) ? 'importance (sums to 1)'
                                 : 'importance (share among the trials that hold it)'}, automargin: true},
           yaxis: {type: 'category', dtick: 1, automargin: true},
           margin: {l: 120, r: 20, t: 30, b: 50}, height: Math.max(260, 100 + 22 * ps.length)});
    note('importance', 'Method: ' + imp.method + '.');
  }

  function pearson(xs, ys) {
    const n = xs.length, mx = xs.reduce((a, b) => a + b, 0) / n, my = ys.reduce((a, b) => a + b, 0) / n;
    let sxy = 0, sxx = 0, syy = 0;
    for (let i = 0; i < n; i++) {
      sxy += (xs[i] - mx) * (ys[i] - my); sxx += (xs[i] - mx) ** 2; syy += (ys[i] - my) ** 2;
    }
    return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : NaN;
  }

  function metrics() {
    if (!data.metric_pairs.length) {
      return empty('metrics', 'No pair of recorded metrics to compare (the study records ' +
                   'no metric besides its objective, and no val_X with a test_X).');
    }
    const value = (t, name) => (name === data.metric && t.value !== null ? t.value : t.m[name]);
    let sampled = null;
    data.metric_pairs.forEach(([xn, yn]) => {
      const all = complete.filter(t => typeof value(t, xn) === 'number' && typeof value(t, yn) === 'number');
      // r over every trial; the chart over a sample.
      const r = all.length > 1 ? pearson(all.map(t => value(t, xn)), all.map(t => value(t, yn))) : NaN;
      const ts = sample(all, SAMPLE_POINTS);
      const xs = ts.map(t => value(t, xn)), ys = ts.map(t => value(t, yn));
      const where = cell('metrics');
      const div = chart('metrics', [{type: 'scatter', mode: 'markers', x: xs, y: ys,
                                     text: ts.map(t => 'trial ' + t.n), marker: {color: '#1f77b4', size: 7}}],
                        {xaxis: {title: {text: esc(xn)}}, yaxis: {title: {text: esc(yn)}}, showlegend: false}, 'small',
                        where);
      div.setAttribute('title', xn + ' vs ' + yn);
      element(where, 'p', 'note', yn + ' against ' + xn + ' over ' + all.length + ' COMPLETE trial(s)' +
           (isNaN(r) ? '' : ': Pearson r = ' + r.toFixed(3)) + '.');
      if (ts.length < all.length) sampled = [ts.length, all.length];
    });
    if (sampled) sampleNote('metrics', sampled[0], sampled[1], 'These charts');
  }

  // Where a trial's time went, as hpo-trainer reports it: "load 0.41 data
  // 1.02 train 0.55 valid 0.12 test 0.30 s" (and CUDA's start-up on a GPU).
  function splitText(t) {
    if (!t.split) return '';
    return t.split.map(([k, s]) => (k === 'cuda_init' ? 'CUDA init' : k) + ' ' + s.toFixed(2)).join(' ') + ' s';
  }

  function timeline() {
    const ts = trials.filter(t => t.start !== null);
    if (!ts.length) return empty('timeline', 'No trial has started yet.');
    const hosts = new Set(ts.map(t => t.host));
    const row = t => (hosts.size > 1 ? (t.host || '?') + ' / ' : '') + (t.slot || 'slot ?');
    // Plotly shows epoch milliseconds as UTC: shift by the generating
    // machine's offset so the axis reads in the study's local time.
    const ms = s => (s + data.utc_offset_s) * 1000;
    const traces = [];
    STATES.forEach(state => {
      const ss = ts.filter(t => t.state === state);
      if (!ss.length) return;
      const end = t => (t.end !== null ? t.end : data.generated_at);
      traces.push({type: 'bar', orientation: 'h', name: state, y: ss.map(row).map(esc),
                   base: ss.map(t => ms(t.start)), x: ss.map(t => Math.max(ms(end(t)) - ms(t.start), 1)),
                   text: ss.map(t => [t.gpu_util !== null ? Math.round(t.gpu_util) + '% GPU' : '', splitText(t)]
                       .filter(s => s).join(' \u00b7 ')),
                   textposition: 'inside', insidetextanchor: 'middle',
                   hovertext: ss.map(t => hover(t) + (t.gpu_util !== null ? '<br>GPU ' + Math.round(t.gpu_util) + '%' : '') +
                                     (t.split ? '<br>' + splitText(t) : '') +
                                     '<br>' + Math.round(end(t) - t.start) + ' s'),
                   hoverinfo: 'text', marker: {color: COLORS[state]}});
    });
    // The chart grows with its rows: in the CSS's 420 px, 50 slots got 7 px each.
    const rows = new Set(ts.map(row));
    const height = Math.max(260, 90 + 22 * rows.size);
    chart('timeline', traces, {barmode: 'overlay', xaxis: {type: 'date', title: {text: 'time'}},
                               yaxis: {type: 'category', automargin: true}, height: height});
    const gpu = ts.some(t => t.gpu_util !== null);
    note('timeline', 'One row per slot' + (hosts.size > 1 ? ' and host' : '') + ', each trial a bar from start to end. ' +
         (gpu ? 'Labels give the GPU\'s mean utilization during the trial. ' : 'No GPU utilization was recorded. ') +
         (ts.some(t => t.split) ? 'Labels give where a trial\'s time went (loading, data, training, validation, ' +
                                  'test: seconds, as its trainer reported them). ' : '') +
         'Gaps between bars are idle time.');
  }

  function failures() {
    const f = data.failures;
    if (!f.total) return empty('failures', 'No trial failed.');
    // Rows stay one line high (stderr folded) and the table scrolls in a
    // box of its own: 200 unfolded tails made the page 39,000 px tall.
    const table = element(element(body('failures'), 'div', 'scroll'), 'table');
    const head = element(table, 'tr');
    ['trial', 'state', 'reason', 'stderr (tail)'].forEach(h => element(head, 'th', '', h));
    f.rows.forEach(r => {
      const tr = element(table, 'tr');
      element(tr, 'td', '', String(r.n));
      element(tr, 'td', 'state', r.state).style.color = COLORS[r.state];
      element(tr, 'td', '', r.reason);
      const fold = element(element(tr, 'td'), 'details');
      const lines = r.stderr_tail ? r.stderr_tail.split('\n').length : 0;
      element(fold, 'summary', '', lines ? lines + ' line(s)' : '(empty)');
      element(fold, 'pre', '', r.stderr_tail);
    });
    if (f.rows.length < f.total) note('failures', 'Showing the first ' + f.rows.length + ' of ' + f.total + ' failures.');
  }

  function best() {
    const b = data.best;
    if (!b) return empty('best', 'No COMPLETE trial yet.');
    if (b.config !== null) {
      note('best', 'Trial ' + b.n + (data.pareto ? ', the knee of the Pareto front, as hpo export --knee -o best.yaml writes it'
                                                  : ', as hpo export -o best.yaml writes it') +
           (b.run ? ': run it with ' + b.run : '') + '.');
      element(body('best'), 'pre', 'config', b.config);
    } else {
      note('best', 'Trial ' + b.n + ' was not run by hpo, so no config was stored; its parameters:');
      element(body('best'), 'pre', 'config', JSON.stringify(b.params, null, 2));
    }
  }

  // The selected trial's DSR, the sweep's PBO with its logits' histogram
  // and the validation-to-test carry-over (docs/overfitting.md).
  function overfitting() {
    const sel = data.selection;
    if (!sel || !sel.available) {
      return empty('overfitting', 'No trial reported daily series, so there is nothing to judge overfitting by ' +
                   '(the trainer\'s "series" report lines; see docs/overfitting.md).');
    }
    if (sel.pbo && sel.pbo.logit_histogram) {
      const h = sel.pbo.logit_histogram, width = (h.hi - h.lo) / h.counts.length;
      chart('overfitting', [{type: 'bar', x: h.counts.map((c, i) => h.lo + (i + 0.5) * width), y: h.counts,
                             marker: {color: h.counts.map((c, i) => h.lo + (i + 0.5) * width <= 0 ? '#d62728' : '#1f77b4')}}],
            {xaxis: {title: {text: 'logit of the in-sample best trial\'s out-of-sample rank'}},
             yaxis: {title: {text: 'combinations'}}, bargap: 0.05});
      note('overfitting', 'PBO = ' + sel.pbo.pbo.toFixed(3) + ': the share of the ' + sel.pbo.combinations +
           ' CSCV combinations (red, logit <= 0) where the in-sample best trial ranked at or below the ' +
           'out-of-sample median. Near 0: the choice holds up; near 0.5 or above: it is luck.');
    }
    element(body('overfitting'), 'pre', 'selection', sel.text);
  }

  // Section 11, for several objectives (pareto_data.h): the trials on the
  // objectives' axes, the front marked and infeasible trials apart, and
  // the front's hypervolume as trials were added. One objective: no section.
  function pareto() {
    const p = data.pareto;
    if (!p) return document.getElementById('pareto').remove();
    if (!p.points.length) return empty('pareto', 'No COMPLETE trial with every objective yet.');
    const axis = i => ({title: {text: esc(p.metrics[i]) + ' (' + p.directions[i] + ')'}});
    const groups = [
      {name: 'Pareto front', pts: p.points.filter(q => q.front), marker: {color: '#d62728', size: 9}},
      {name: p.constrained ? 'feasible, dominated' : 'dominated', pts: p.points.filter(q => !q.front && q.feasible),
       marker: {color: COLORS.COMPLETE, size: 7}},
      {name: 'infeasible', pts: p.points.filter(q => !q.feasible),
       marker: {color: '#7f7f7f', size: 7, symbol: 'x'}},
    ].filter(g => g.pts.length);
    const text = q => 'trial ' + q.n + '<br>' + p.metrics.map((m, i) => esc(m) + ' = ' + q.values[i]).join('<br>');
    const pairs = p.metrics.length === 2 ? [[0, 1]] : [[0, 1], [0, 2], [1, 2]];
    pairs.forEach(([i, j]) => {
      const traces = groups.map(g => ({type: scatterType(g.pts.length), mode: 'markers', name: g.name,
                                       legendgroup: g.name, showlegend: i === 0 && j === 1,
                                       x: g.pts.map(q => q.values[i]), y: g.pts.map(q => q.values[j]),
                                       text: g.pts.map(text), hoverinfo: 'text', marker: g.marker}));
      chart('pareto', traces, {xaxis: axis(i), yaxis: axis(j)}, '', pairs.length > 1 ? cell('pareto') : undefined);
    });
    const hv = p.hypervolume;
    if (hv.n.length) {
      chart('pareto', [{type: 'scatter', mode: 'lines+markers', name: 'hypervolume', x: hv.n, y: hv.hv,
                        line: {color: '#111', shape: 'hv'}, marker: {size: 4}}],
            {xaxis: {title: {text: 'trial'}}, yaxis: {title: {text: 'hypervolume of the front'}}});
    }
    const infeasible = p.points.filter(q => !q.feasible).length;
    note('pareto', (pairs.length > 1 ? 'Each pair of the three objectives; the front is the three-objective one. ' : '') +
         'A trial is on the Pareto front (red) when no other trial is at least as good on every objective and ' +
         'better on one' + (p.constrained ? ', among the trials that meet the study\'s constraints; the ' + infeasible +
         ' that break them are grey x marks, outside the front' : '') + '. The hypervolume is the region ' +
         'the front dominates up to a reference point just beyond the worst ' + (p.constrained ? 'feasible ' : '') +
         'value of each objective (' + (hv.reference || []).map(numberText).join(', ') +
         '): it grows as the search finds better trade-offs. hpo export --knee or --weights picks one trial of the front.' +
         (p.not_drawn.trials ? ' ' + p.not_drawn.trials + ' trial(s) with an infinite objective value are not drawn ' +
          '(no place on an axis) and left out of the hypervolume' + (p.not_drawn.front ? '; ' + p.not_drawn.front +
          ' of them on the front, which is ' + p.front_size + ' trial(s) in all (hpo best lists them)' : '') + '.' : ''));
  }

  [summary, history, curves, picker, parallel, slices, importance, metrics, timeline, failures, best, overfitting, pareto].forEach(draw => {
    try {
      draw();
    } catch (e) {
      console.error('hpo report: ' + draw.name + ': ' + e);
    }
  });
  Promise.all(plots).then(() => { document.body.dataset.rendered = 'yes'; },
                          e => { console.error('hpo report: ' + e); document.body.dataset.rendered = 'error'; });
})();
