"""The gateway's ``/ui`` page: spend per key and per model over time (an SVG chart drawn in
the page) and the latest requests. The page itself holds no data: it reads ``/admin/spend``
and ``/admin/requests`` with the admin key, which it takes from the address's fragment
(``/ui#key=...``, never sent to the server, removed from the address bar at once) or from its
form, and keeps in the tab's ``sessionStorage``. Every value is put in the page as text
(``textContent``), never as HTML."""

from __future__ import annotations

__all__ = ["PAGE"]

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>aisuite-like gateway</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px system-ui,sans-serif;margin:24px;color:#222}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse}td,th{border-bottom:1px solid #ddd;padding:4px 10px;
text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}
#error{color:#b00}svg{border:1px solid #ddd;background:#fafafa}
.legend span{display:inline-block;margin-right:14px}
.legend i{display:inline-block;width:10px;height:10px;margin-right:4px}
</style></head><body>
<h1>aisuite-like gateway</h1>
<form id="login" hidden><label>Admin key <input id="key" type="password"
autocomplete="off"></label> <button>Show</button></form>
<p id="error" role="alert"></p>
<div id="report" hidden>
<p id="status">Loading&hellip;</p>
<h2>Spend per key (USD, per hour)</h2><svg id="chart-key" width="720" height="220"></svg>
<div class="legend" id="legend-key"></div>
<table id="by-key"><thead><tr><th>key</th><th>requests</th><th>input tokens</th>
<th>output tokens</th><th>cost (USD)</th></tr></thead><tbody></tbody></table>
<h2>Spend per model (USD, per hour)</h2><svg id="chart-model" width="720" height="220"></svg>
<div class="legend" id="legend-model"></div>
<table id="by-model"><thead><tr><th>model</th><th>requests</th><th>input tokens</th>
<th>output tokens</th><th>cost (USD)</th></tr></thead><tbody></tbody></table>
<h2>Latest requests</h2>
<table id="latest"><thead><tr><th>time (UTC)</th><th>key</th><th>endpoint</th><th>model</th>
<th>deployment</th><th>status</th><th>tokens</th><th>cost (USD)</th><th>ms</th>
<th>cache</th></tr></thead><tbody></tbody></table>
</div>
<script>
"use strict";
const COLORS = ["#1f77b4","#ff7f0e","#2ca02c","#d62728","#9467bd","#8c564b","#e377c2"];
const NS = "http://www.w3.org/2000/svg";
function cell(row, text, numeric) {
  const td = document.createElement("td");
  td.textContent = text === null || text === undefined ? "-" : String(text);
  if (numeric) td.className = "n";
  row.appendChild(td); return td;
}
function money(x) { return x === null || x === undefined ? "-" : Number(x).toFixed(6); }
async function get(path, key) {
  const reply = await fetch(path, {headers: {"Authorization": "Bearer " + key}});
  if (!reply.ok) throw new Error(reply.status === 401 ? "the admin key is not valid"
                                 : "the gateway answered " + reply.status);
  return (await reply.json()).data;
}
function totals(rows, by, table) {
  const sums = new Map();
  for (const r of rows) {
    const name = r[by] === null ? "(none)" : r[by];
    const t = sums.get(name) || {requests: 0, cost: 0, prompt: 0, completion: 0};
    t.requests += r.requests; t.cost += r.cost; t.prompt += r.prompt_tokens;
    t.completion += r.completion_tokens; sums.set(name, t);
  }
  const body = document.querySelector("#" + table + " tbody");
  body.replaceChildren();
  for (const [name, t] of [...sums.entries()].sort()) {
    const row = document.createElement("tr");
    row.dataset.name = name;
    cell(row, name); cell(row, t.requests, true).className = "n requests";
    cell(row, t.prompt, true); cell(row, t.completion, true);
    cell(row, money(t.cost), true).className = "n cost";
    body.appendChild(row);
  }
  return [...sums.keys()].sort();
}
function chart(rows, by, names, svgId, legendId) {
  const svg = document.getElementById(svgId), legend = document.getElementById(legendId);
  svg.replaceChildren(); legend.replaceChildren();
  const W = 720, H = 220, P = 30;
  const starts = [...new Set(rows.map(r => r.start))].sort((a, b) => a - b);
  const top = Math.max(1e-9, ...rows.map(r => r.cost));
  const x = s => starts.length < 2 ? W / 2 : P + (W - 2 * P) * starts.indexOf(s)
                                              / (starts.length - 1);
  const y = c => H - P - (H - 2 * P) * c / top;
  const label = (text, lx, ly, anchor) => {
    const t = document.createElementNS(NS, "text");
    t.setAttribute("x", lx); t.setAttribute("y", ly); t.setAttribute("font-size", "11");
    t.setAttribute("text-anchor", anchor); t.textContent = text; svg.appendChild(t);
  };
  const axis = document.createElementNS(NS, "polyline");
  axis.setAttribute("points", P + "," + P + " " + P + "," + (H - P) + " " + (W - P) + ","
                    + (H - P));
  axis.setAttribute("fill", "none"); axis.setAttribute("stroke", "#999"); svg.appendChild(axis);
  label("$" + money(top), P + 4, P - 8, "start");
  const hour = s => new Date(s * 1000).toISOString().slice(5, 13).replace("T", " ") + "h";
  if (starts.length) {
    label(hour(starts[0]), x(starts[0]), H - P + 16, starts.length < 2 ? "middle" : "start");
    if (starts.length > 1) label(hour(starts[starts.length - 1]),
                                 x(starts[starts.length - 1]), H - P + 16, "end");
  }
  names.forEach((name, i) => {
    const color = COLORS[i % COLORS.length];
    const points = rows.filter(r => (r[by] === null ? "(none)" : r[by]) === name)
                       .map(r => x(r.start) + "," + y(r.cost));
    const line = document.createElementNS(NS, points.length > 1 ? "polyline" : "circle");
    if (points.length > 1) {
      line.setAttribute("points", points.join(" ")); line.setAttribute("fill", "none");
      line.setAttribute("stroke", color); line.setAttribute("stroke-width", "2");
    } else if (points.length === 1) {
      const [cx, cy] = points[0].split(",");
      line.setAttribute("cx", cx); line.setAttribute("cy", cy); line.setAttribute("r", "4");
      line.setAttribute("fill", color);
    }
    line.dataset.series = name; svg.appendChild(line);
    const item = document.createElement("span"), swatch = document.createElement("i");
    swatch.style.background = color; item.appendChild(swatch);
    item.appendChild(document.createTextNode(name)); legend.appendChild(item);
  });
}
async function show(key) {
  document.getElementById("login").hidden = true;
  document.getElementById("report").hidden = false;
  try {
    const [byKey, byModel, latest] = await Promise.all([
      get("/admin/spend?by=key&bucket=3600", key), get("/admin/spend?by=model&bucket=3600", key),
      get("/admin/requests?limit=50", key)]);
    chart(byKey, "key", totals(byKey, "key", "by-key"), "chart-key", "legend-key");
    chart(byModel, "model", totals(byModel, "model", "by-model"), "chart-model",
          "legend-model");
    const body = document.querySelector("#latest tbody");
    body.replaceChildren();
    for (const r of latest) {
      const row = document.createElement("tr");
      cell(row, new Date(r.ts * 1000).toISOString().replace("T", " ").slice(0, 19));
      cell(row, r.key_name); cell(row, r.endpoint); cell(row, r.model);
      cell(row, r.deployment); cell(row, r.status, true);
      cell(row, (r.prompt_tokens || 0) + (r.completion_tokens || 0), true);
      cell(row, money(r.cost), true); cell(row, r.latency_ms === null ? null
                                                : Math.round(r.latency_ms), true);
      cell(row, r.cache_hit ? "hit" : "");
      body.appendChild(row);
    }
    document.getElementById("status").textContent = latest.length + " latest requests";
    document.body.dataset.loaded = "true";
  } catch (e) {
    document.getElementById("error").textContent = e.message;
    document.getElementById("report").hidden = true;
    sessionStorage.removeItem("gatewayAdminKey");
    document.getElementById("login").hidden = false;
  }
}
const fromHash = new URLSearchParams(location.hash.slice(1)).get("key");
if (fromHash) {
  sessionStorage.setItem("gatewayAdminKey", fromHash);
  history.replaceState(null, "", location.pathname);
}
document.getElementById("login").addEventListener("submit", e => {
  e.preventDefault();
  const key = document.getElementById("key").value;
  sessionStorage.setItem("gatewayAdminKey", key); show(key);
});
const stored = sessionStorage.getItem("gatewayAdminKey");
if (stored) show(stored); else document.getElementById("login").hidden = false;
</script></body></html>
"""
