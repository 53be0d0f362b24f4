// The browsable locality report: everything comes from the JSON the views
// print (sprof --misses/--use/--data/--reuse-pairs/--mrc --format json),
// embedded in this page by `sprof --html`, so the page opens offline and
// shows the numbers the text reports show.
"use strict";
const S = JSON.parse(document.getElementById("sprof-data").textContent);
const R = S.reports;

// --- helpers ---------------------------------------------------------------
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
};
const svgEl = (tag, attrs = {}) => {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
};
const bytes = (b) => {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (b >= 1024 && i < units.length - 1 && b % 1024 === 0) { b /= 1024; ++i; }
  return b + " " + units[i];
};
const num = (v, digits = 0) => (v === null || v === undefined ? "unknown"
  : Number(v).toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits }));
const pct = (v) => (v === null || v === undefined ? "unknown" : num(v, 1) + " %");
// "file.c:18" → {file, line}; other locations (functions, function+0xOFF) → null.
const sourceOf = (location) => {
  const m = /^(.*):(\d+)$/.exec(location || "");
  return m && S.sources[m[1]] ? { file: m[1], line: Number(m[2]) } : null;
};
// The caches of a view and the suffix of their columns: "" for the first, "_1M" … after.
const caches = (report) => (report && report.caches ? report.caches : []).map((c, i) =>
  ({ bytes: c.cache_bytes, label: bytes(c.cache_bytes), suffix: i === 0 ? "" : "_" + shortSize(c.cache_bytes) }));
// Each path's shortest tail of whole components that no other path ends
// with ("left/table.h" beside "right/table.h", "stl_tree.h" alone): the
// sidebar names files by what tells them apart, not by a cut-off prefix.
const uniqueTails = (paths) => {
  const parts = new Map(paths.map((p) => [p, p.split("/")]));
  const tail = (p, k) => parts.get(p).slice(-k).join("/");
  return new Map(paths.map((p) => {
    let k = 1;
    while (k < parts.get(p).length && paths.some((q) => q !== p && tail(q, k) === tail(p, k))) ++k;
    return [p, tail(p, k)];
  }));
};
const shortSize = (b) => {
  for (const [u, s] of [[1 << 30, "G"], [1 << 20, "M"], [1 << 10, "K"]]) if (b % u === 0) return b / u + s;
  return String(b);
};

const missRows = R.misses ? R.misses.locations : [];
const misses = new Map(missRows.map((r) => [r.location, r]));
const statements = R.use ? R.use.statements : [];
const pairs = R.reuse_pairs ? R.reuse_pairs.pairs : [];
const missCaches = caches(R.misses);
const maxMisses = Math.max(1e-9, ...missRows.map((r) => r.misses || 0));

// --- header and index ------------------------------------------------------
function summary() {
  const l = (R.misses || R.mrc || {}).locality || {};
  const parts = [S.title, l.mode ? l.mode + " run" : "", l.accesses ? num(l.accesses) + " accesses" : "",
    l.line_size ? l.line_size + "-byte lines" : ""];
  for (const c of (R.misses && R.misses.caches) || [])
    parts.push(`${bytes(c.cache_bytes)}: miss ratio ${num(100 * c.miss_ratio, 2)} %`);
  document.getElementById("summary").textContent = parts.filter(Boolean).join(" · ");
}

function index() {
  const nav = document.getElementById("index");
  const link = (text, n, go, id) => el("a", { href: "#", id, onclick: (e) => { e.preventDefault(); go(); } },
    el("span", { class: "n" }, n), text);
  nav.append(el("h3", {}, "Views"));
  nav.append(link("Miss-ratio curve", "", showCurve, "nav-mrc"));
  nav.append(link("Lines and functions by misses", "", showMisses, "nav-misses"));
  nav.append(link("Data structures", R.data ? R.data.data.length : "", showData, "nav-data"));
  nav.append(link("Spatial and temporal use", statements.length || "", showUse, "nav-use"));
  nav.append(link("Reuse pairs", pairs.length || "", showPairs, "nav-pairs"));
  nav.append(el("h3", {}, "Source files"));
  const perFile = new Map();
  for (const r of missRows) {
    const s = sourceOf(r.location);
    if (s) perFile.set(s.file, (perFile.get(s.file) || 0) + (r.misses || 0));
  }
  const tails = uniqueTails(Object.keys(S.sources));
  for (const f of Object.keys(S.sources).sort((a, b) => (perFile.get(b) || 0) - (perFile.get(a) || 0))) {
    const a = link(tails.get(f), num(perFile.get(f) || 0), () => showSource(f), "file-" + f);
    a.title = f;
    nav.append(a);
  }
  if (!Object.keys(S.sources).length)
    nav.append(el("div", { class: "note" }, "No source lines in this profile: build with -g to see them."));
  for (const [f, why] of Object.entries(S.missing_sources || {}))
    nav.append(el("div", { class: "note warn", title: why }, f + ": " + why));
}

function setView(title, ...content) {
  const v = document.getElementById("view");
  v.replaceChildren(el("h2", {}, title), ...content);
  v.scrollTop = 0;
}

function info(title, ...content) {
  document.getElementById("info-body").replaceChildren(el("h3", {}, title), ...content);
}

// A table of rows: columns [{key, label, fmt, text}]; a click on a row calls onRow.
function grid(rows, columns, onRow) {
  const t = el("table", { class: "grid" });
  const head = el("tr");
  const body = el("tbody");
  let order = null;
  const fill = () => {
    body.replaceChildren(...rows.map((r) => {
      const tr = el("tr", onRow ? { onclick: () => onRow(r) } : {});
      for (const c of columns) tr.append(el("td", { class: c.text ? "t" : "" }, c.fmt ? c.fmt(r[c.key], r) : r[c.key] ?? ""));
      return tr;
    }));
  };
  for (const c of columns)
    head.append(el("th", { class: c.text ? "t" : "", onclick: () => {
      order = order === c.key ? null : c.key;
      rows = [...rows].sort((a, b) => (c.text ? String(a[c.key]).localeCompare(String(b[c.key]))
        : (b[c.key] ?? -1) - (a[c.key] ?? -1)));
      fill();
    } }, c.label));
  t.append(el("thead", {}, head), body);
  fill();
  return t;
}

// --- the views -------------------------------------------------------------
function missColumns(report) {
  const cols = [{ key: "location", label: "location", text: true }, { key: "accesses_pct", label: "accesses %", fmt: (v) => num(v, 2) }];
  for (const c of caches(report)) {
    cols.push({ key: "miss_ratio" + c.suffix, label: "miss ratio " + c.label, fmt: (v) => num(v, 4) });
    cols.push({ key: "misses" + c.suffix, label: "misses " + c.label, fmt: (v) => num(v) });
  }
  return cols;
}

function showMisses() {
  const parts = [grid(missRows, missColumns(R.misses), openLocation)];
  if (R.functions)
    parts.push(el("h3", {}, "Functions"), grid(R.functions.locations, missColumns(R.functions), (r) => locationInfo(r.location)));
  setView("Lines by estimated misses", ...parts);
}

function showData() {
  if (!R.data) return setView("Data structures", el("p", { class: "note" }, S.errors.data || "not in this profile"));
  const cols = [{ key: "data", label: "data", text: true }, { key: "kind", label: "kind", text: true },
    { key: "size", label: "bytes", fmt: (v) => (v === null ? "" : num(v)) }, { key: "accesses_pct", label: "accesses %", fmt: (v) => num(v, 2) }];
  for (const c of caches(R.data)) {
    cols.push({ key: "miss_ratio" + c.suffix, label: "miss ratio " + c.label, fmt: (v) => num(v, 4) });
    cols.push({ key: "misses" + c.suffix, label: "misses " + c.label, fmt: (v) => num(v) });
    cols.push({ key: "spatial_use" + c.suffix, label: "spatial use " + c.label, fmt: pct });
    cols.push({ key: "temporal_use" + c.suffix, label: "temporal use " + c.label, fmt: (v) => num(v, 2) });
  }
  setView("Data structures", grid(R.data.data, cols, (r) => info(r.data, dl(r, cols))));
}

function useColumns() {
  const cols = [{ key: "location", label: "statement", text: true }, { key: "access", label: "kind", text: true }];
  for (const c of caches(R.use)) {
    cols.push({ key: "spatial_use" + c.suffix, label: "spatial use " + c.label, fmt: pct });
    cols.push({ key: "temporal_use" + c.suffix, label: "temporal use " + c.label, fmt: (v) => num(v, 2) });
    cols.push({ key: "misses" + c.suffix, label: "misses " + c.label, fmt: (v) => num(v) });
  }
  return cols;
}

function showUse() {
  if (!R.use) return setView("Spatial and temporal use", el("p", { class: "note" }, S.errors.use || "not in this profile"));
  setView("Spatial and temporal use (SIP)", grid(statements, useColumns(), openLocation));
}

const pairColumns = [{ key: "use", label: "use", text: true }, { key: "reuse", label: "reuse", text: true },
  { key: "share", label: "share %", fmt: (v) => num(v, 1) }, { key: "hint", label: "hint", text: true },
  { key: "misses", label: "misses", fmt: (v) => num(v) }, { key: "spatial_use", label: "spatial use", fmt: pct }];

function showPairs() {
  if (!R.reuse_pairs) return setView("Reuse pairs", el("p", { class: "note" }, S.errors.reuse_pairs || "not in this profile"));
  const p = R.reuse_pairs;
  setView("Reuse pairs (use → reuse) that miss in " + bytes(p.cache_bytes),
    el("p", { class: "note" }, `${num(100 * p.long_reuse_share, 2)} % of the reuses are longer than the cache; ` +
      `the ${pairs.length} heaviest of ${p.all_pairs} pairs hold most of those misses.`),
    grid(pairs, pairColumns, pairInfo),
    el("h3", {}, "Clusters by the code between"),
    grid(p.clusters, [{ key: "cluster", label: "cluster" }, { key: "share", label: "share %", fmt: (v) => num(v, 1) },
      { key: "hint", label: "hint", text: true }, { key: "pairs", label: "pairs" },
      { key: "between", label: "code between", text: true, fmt: betweenText }]));
}

const betweenText = (between) => (between || []).slice(0, 3).map((b) => `${b.location} ${num(100 * b.share)} %`).join("; ");

// The miss-ratio curve on a log axis of bytes, with its confidence band.
function showCurve() {
  const rows = R.mrc ? R.mrc.curve : null;
  if (!rows || !rows.length) return setView("Miss-ratio curve", el("p", { class: "note" }, S.errors.mrc || "no curve"));
  const W = 640, H = 330, L = 64, B = 40;
  const xs = rows.map((r) => Math.log2(r.cache_bytes));
  const x0 = Math.min(...xs), x1 = Math.max(...xs);
  const top = Math.max(1e-6, ...rows.map((r) => r.high ?? r.miss_ratio));
  const X = (b) => L + (W - L - 10) * (Math.log2(b) - x0) / Math.max(1e-9, x1 - x0);
  const Y = (m) => H - B - (H - B - 10) * m / top;
  const svg = svgEl("svg", { width: W, height: H, id: "mrc", role: "img" });
  const band = rows.map((r) => `${X(r.cache_bytes)},${Y(r.high ?? r.miss_ratio)}`)
    .concat([...rows].reverse().map((r) => `${X(r.cache_bytes)},${Y(r.low ?? r.miss_ratio)}`));
  svg.append(svgEl("polygon", { points: band.join(" "), fill: "#f4c7c3" }));
  svg.append(svgEl("polyline", { points: rows.map((r) => `${X(r.cache_bytes)},${Y(r.miss_ratio)}`).join(" "),
    fill: "none", stroke: "#b00", "stroke-width": 2 }));
  svg.append(svgEl("line", { x1: L, y1: H - B, x2: W - 10, y2: H - B, stroke: "#333" }));
  svg.append(svgEl("line", { x1: L, y1: 10, x2: L, y2: H - B, stroke: "#333" }));
  for (let e = Math.ceil(x0); e <= x1; e += 2) {
    const t = svgEl("text", { x: X(2 ** e), y: H - 10, "text-anchor": "middle", "font-size": 10 });
    t.textContent = bytes(2 ** e);
    svg.append(t);
  }
  for (const f of [0, 0.5, 1]) {
    const t = svgEl("text", { x: L - 4, y: Y(f * top) + 3, "text-anchor": "end", "font-size": 10 });
    t.textContent = num(f * top, 3);
    svg.append(t);
  }
  axisTitles(svg, "cache size (bytes, log scale)", "miss ratio", { x: (L + W) / 2, y: H - 4 }, { x: 14, y: (H - B) / 2 });
  setView("Miss-ratio curve (" + (R.mrc.locality ? R.mrc.locality.policy : "") + ")", svg,
    grid(rows, [{ key: "cache_bytes", label: "cache", fmt: bytes }, { key: "miss_ratio", label: "miss ratio", fmt: (v) => num(v, 4) },
      { key: "low", label: "low", fmt: (v) => num(v, 4) }, { key: "high", label: "high", fmt: (v) => num(v, 4) }]));
}

// The titles of a chart's axes: x's centred under it, y's turned along it.
function axisTitles(svg, xTitle, yTitle, xAt, yAt) {
  const x = svgEl("text", { x: xAt.x, y: xAt.y, "text-anchor": "middle", "font-size": 11, class: "axis-title x" });
  x.textContent = xTitle;
  const y = svgEl("text", { x: yAt.x, y: yAt.y, "text-anchor": "middle", "font-size": 11, class: "axis-title y",
    transform: `rotate(-90 ${yAt.x} ${yAt.y})` });
  y.textContent = yTitle;
  svg.append(x, y);
}

// The line of a file with the most misses, or null when none of its lines has any.
function hottestLine(file) {
  let best = null;
  for (const r of missRows) {
    const s = sourceOf(r.location);
    if (s && s.file === file && (r.misses || 0) > (best ? best.misses || 0 : -1)) best = { line: s.line, misses: r.misses };
  }
  return best ? best.line : null;
}

// One source file: per line its misses (colour and bar) and the heavy reuse
// pairs drawn as arrows from the use line to the reuse line.
function showSource(file, line = hottestLine(file)) {
  document.querySelectorAll("nav a.current").forEach((a) => a.classList.remove("current"));
  document.getElementById("file-" + file)?.classList.add("current");
  const src = S.sources[file];
  const table = el("table", { class: "source", id: "source" });
  src.lines.forEach((text, i) => {
    const location = `${file}:${i + 1}`;
    const m = misses.get(location);
    const heat = m ? Math.min(1, (m.misses || 0) / maxMisses) : 0;
    const tr = el("tr", { class: "line", id: "L" + (i + 1), "data-location": location, onclick: () => selectLine(file, i + 1) },
      el("td", { class: "no" }, i + 1),
      el("td", { class: "acc", title: "share of the accesses" }, m ? num(m.accesses_pct, 1) + " %" : ""),
      el("td", { class: "cost" }, m ? el("span", { class: "bar", style: `width:${Math.round(60 * heat)}px` }) : "",
        m ? " " + num(m.misses) : ""),
      el("td", { class: "arrows" }),
      el("td", { class: "code" }, text || " "));
    if (heat > 0) tr.style.background = `rgba(220, 40, 30, ${0.08 + 0.5 * heat})`;
    table.append(tr);
  });
  const wrap = el("div", { class: "source-wrap" }, table);
  const note = el("p", { class: "note" }, src.path + " — per line: share of the accesses; bar and colour: estimated misses in " +
    (missCaches[0] ? missCaches[0].label : "the cache") + "; arrows: heavy reuse pairs (use → reuse), darker = more misses");
  setView(file, note, wrap);
  drawArrows(file, wrap, table);
  // Opened at the line asked for, else its hottest: a header's hot line is
  // thousands of lines below its licence text.
  if (line) table.querySelector("#L" + line)?.scrollIntoView({ block: "center" });
}

function drawArrows(file, wrap, table) {
  // Both ends in this file, on lines it still has (the source may have changed since the run).
  const here = pairs.map((p) => ({ p, u: sourceOf(p.use), r: sourceOf(p.reuse) }))
    .filter((a) => a.u && a.r && a.u.file === file && a.r.file === file &&
      table.querySelector("#L" + a.u.line) && table.querySelector("#L" + a.r.line));
  if (!here.length) return;
  const gutter = table.querySelector("td.arrows");
  const left = gutter.offsetLeft, width = gutter.offsetWidth;
  const svg = svgEl("svg", { class: "arrows", width: left + width, height: table.offsetHeight, style: "left:0" });
  svg.append(Object.assign(svgEl("defs"), { innerHTML:
    '<marker id="head" markerWidth="8" markerHeight="8" refX="6" refY="4" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#333"/></marker>' }));
  const maxShare = Math.max(...here.map((a) => a.p.share));
  here.forEach((a, k) => {
    const rowY = (line) => { const tr = table.querySelector("#L" + line); return tr.offsetTop + tr.offsetHeight / 2; };
    const y1 = rowY(a.u.line), y2 = rowY(a.r.line);
    const x = left + width - 6, bend = left + width - 20 - 18 * (k % 5) - Math.min(40, Math.abs(y2 - y1) / 4);
    const w = a.p.share / maxShare;
    const path = svgEl("path", { d: `M${x},${y1} C${bend},${y1} ${bend},${y2} ${x},${y2}`,
      stroke: `rgba(${Math.round(60 + 180 * w)}, 30, 30, ${0.35 + 0.65 * w})`, "stroke-width": 1.5 + 3 * w,
      "marker-end": "url(#head)", class: "pair", "data-use": a.p.use, "data-reuse": a.p.reuse });
    path.addEventListener("click", (e) => { e.stopPropagation(); pairInfo(a.p); });
    svg.append(path);
  });
  wrap.append(svg);
}

function selectLine(file, line) {
  document.querySelectorAll("tr.selected").forEach((t) => t.classList.remove("selected"));
  document.getElementById("L" + line)?.classList.add("selected");
  locationInfo(`${file}:${line}`);
}

function openLocation(row) {
  const s = sourceOf(row.location);
  if (s) {
    showSource(s.file, s.line);
    selectLine(s.file, s.line);
  } else locationInfo(row.location);
}

function dl(row, cols) {
  const d = el("dl");
  for (const c of cols) d.append(el("dt", {}, c.label), el("dd", {}, c.fmt ? c.fmt(row[c.key], row) : row[c.key] ?? ""));
  return d;
}

// What the info pane shows of a location: its misses, its statements' use,
// and the reuse pairs it begins or ends.
function locationInfo(location) {
  const parts = [];
  const m = misses.get(location);
  if (m) parts.push(el("h4", {}, "Misses"), dl(m, missColumns(R.misses).slice(1)));
  else parts.push(el("p", { class: "note" }, "No sampled access at this location."));
  for (const st of statements.filter((s) => s.location === location))
    parts.push(el("h4", {}, "Use of the lines its " + st.access + "s bring in"), dl(st, useColumns().slice(2)));
  const mine = pairs.filter((p) => p.use === location || p.reuse === location);
  if (mine.length) {
    parts.push(el("h4", {}, "Reuse pairs"));
    for (const p of mine)
      parts.push(el("div", {}, el("a", { href: "#", onclick: (e) => { e.preventDefault(); pairInfo(p); } },
        `${p.use} → ${p.reuse}: ${num(p.share, 1)} % of the misses, hint ${p.hint}`)));
  }
  info(location, ...parts);
}

// A reuse pair: its numbers, its reuse-distance histogram, the code between.
function pairInfo(p) {
  const parts = [dl(p, pairColumns)];
  const h = p.histogram || [];
  if (h.length) {
    const W = 300, H = 120, L = 24, bw = Math.max(4, Math.floor((W - L - 10) / h.length) - 2);
    const top = Math.max(...h.map((b) => b.reuses));
    const svg = svgEl("svg", { width: W, height: H + 34, class: "histogram" });
    h.forEach((b, i) => {
      const hgt = (H - 10) * b.reuses / top;
      const bar = svgEl("rect", { x: L + i * (bw + 2), y: H - hgt, width: bw, height: hgt, fill: "#b33" });
      const title = svgEl("title");
      title.textContent = `distance ${num(b.from)}–${num(b.to)}: ${num(b.reuses)} reuses`;
      bar.append(title);
      svg.append(bar);
      if (i === 0 || i === h.length - 1) {
        const last = i === h.length - 1 && i > 0;  // the last label ends at its bar: inside the chart
        const t = svgEl("text", { x: L + i * (bw + 2) + (last ? bw : 0), y: H + 14, "font-size": 10,
          "text-anchor": last ? "end" : "start" });
        t.textContent = num(b.from);
        svg.append(t);
      }
    });
    axisTitles(svg, "reuse distance (accesses between)", "reuses", { x: (L + W) / 2, y: H + 30 }, { x: 10, y: H / 2 });
    parts.push(el("h4", {}, "Reuse distances (accesses between)"), svg);
  }
  if (p.between && p.between.length) {
    parts.push(el("h4", {}, "Code run between use and reuse"));
    for (const b of p.between) {
      const s = sourceOf(b.location);
      parts.push(el("div", {}, s ? el("a", { href: "#", onclick: (e) => { e.preventDefault(); openLocation({ location: b.location }); } }, b.location)
        : b.location, ` ${num(100 * b.share)} %`));
    }
  }
  info(`${p.use} → ${p.reuse}`, ...parts);
}

summary();
index();
const first = Object.keys(S.sources)[0];
if (first && missRows.some((r) => sourceOf(r.location))) {
  const top = missRows.find((r) => sourceOf(r.location));
  showSource(sourceOf(top.location).file);
} else showMisses();
