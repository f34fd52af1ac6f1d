"""The catalogue's stylesheet and script, written beside the pages (no CDN, no network).

The script is small vanilla JavaScript: it sorts the index table (and any table marked
``data-sortable``, such as the leaderboard's) by a clicked header, filters it by text,
family and status (also from the query string:
``index.html?q=text&family=f&status=s&sort=d&order=desc``), and, on every page, checks that
each ``<img>`` decoded (``naturalWidth > 0``) and records the outcome on the
``<html>`` element (``data-images="ok"`` or ``"broken"``) and in the title, so a
headless browser's DOM dump proves the figures loaded. It also records what is wider than its
box (``data-overflow``: tables that would need horizontal scrolling, or ``page``; and
``data-clipped-terms``: equation terms scrolled inside their box), so the same dump proves
the layout fits the window.
"""

from __future__ import annotations

CSS = """\
:root { --fg: #1d2228; --muted: #5b6470; --line: #d8dde3; --head: #f3f5f8; --link: #0b5cad; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1200px; padding: 1.2rem 1.5rem 3rem; color: var(--fg);
       font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; }
a { color: var(--link); }
h1 { font-size: 1.6rem; margin: 0.2rem 0 0.4rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 0.6rem; border-bottom: 1px solid var(--line); }
.muted { color: var(--muted); }
.controls { display: flex; gap: 0.8rem; flex-wrap: wrap; align-items: center; margin: 1rem 0; }
.controls input, .controls select { font: inherit; padding: 0.3rem 0.5rem; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
th, td { border-bottom: 1px solid var(--line); padding: 0.35rem 0.5rem; text-align: left;
         vertical-align: top; }
table.fixed { table-layout: fixed; }
th.sub { font-weight: normal; color: var(--muted); position: static; }
tr.facts td { border-bottom: none; padding-bottom: 0.1rem; }
tr.mech td { padding-left: 1.5rem; }
/* A long equation is a run of terms that wraps like words; a term wider than the cell
   scrolls inside its own box rather than running past the page. */
.term { display: inline-block; max-width: 100%; overflow-x: auto; overflow-y: hidden;
        vertical-align: middle; padding: 0.1rem 0; }
th { background: var(--head); position: sticky; top: 0; }
th.sortable { cursor: pointer; user-select: none; }
th.sortable::after { content: " \\2195"; color: var(--muted); }
th[aria-sort="ascending"]::after { content: " \\2191"; }
th[aria-sort="descending"]::after { content: " \\2193"; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.badge { display: inline-block; padding: 0 0.45rem; border-radius: 0.6rem; font-size: 0.8rem; }
.released, .pass { background: #d9ead3; } .rejected, .fail { background: #f4cccc; }
.failed, .draft { background: #eeeeee; } .reviewed { background: #cfe2f3; }
.retired { background: #f4cccc; } .warn { background: #fff2cc; } .skip { background: #eeeeee; }
/* Tags wrap like words (pages.py separates them with spaces); a single very long tag breaks. */
.tag { display: inline-block; background: #eef2f7; border-radius: 0.3rem; padding: 0 0.3rem;
       margin: 0 0 0.15rem 0; font-size: 0.8rem; max-width: 100%; overflow-wrap: anywhere; }
.badge { white-space: nowrap; }
table.fixed td { overflow-wrap: anywhere; }
figure { margin: 0.5rem 0; } figure img { max-width: 100%; height: auto; border: 1px solid
  var(--line); } figcaption { color: var(--muted); font-size: 0.85rem; }
math { font-size: 1.05em; } code { font-size: 0.85em; }
.scroll { overflow-x: auto; }
"""

JS = """\
"use strict";
// Sorting and filtering for the index, and an image check on every page.
(function () {
  function cellValue(row, index) {
    var cell = row.cells[index];
    var raw = cell ? (cell.getAttribute("data-sort") || cell.textContent.trim()) : "";
    return /^-?\\d+(\\.\\d+)?$/.test(raw) ? parseFloat(raw) : raw.toLowerCase();
  }
  function sortBy(table, header, index) {
    var body = table.tBodies[0];
    var ascending = header.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      th.removeAttribute("aria-sort");
    });
    header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, index), y = cellValue(b, index);
      var order = (typeof x === typeof y) ? (x < y ? -1 : x > y ? 1 : 0)
                                          : (typeof x === "number" ? -1 : 1);
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }
  function applyFilters(table) {
    var text = (document.getElementById("filter-text") || {}).value || "";
    var family = (document.getElementById("filter-family") || {}).value || "";
    var status = (document.getElementById("filter-status") || {}).value || "";
    var needle = text.toLowerCase(), shown = 0;
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      var ok = row.textContent.toLowerCase().indexOf(needle) >= 0 &&
               (!family || row.getAttribute("data-family") === family) &&
               (!status || row.getAttribute("data-status") === status);
      row.hidden = !ok;
      if (ok) { shown += 1; }
    });
    var counter = document.getElementById("shown-count");
    if (counter) { counter.textContent = String(shown); }
  }
  function setUpIndex() {
    var table = document.getElementById("scm-table");
    if (!table) { return; }
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
      th.classList.add("sortable");
      th.addEventListener("click", function () { sortBy(table, th, index); });
    });
    ["filter-text", "filter-family", "filter-status"].forEach(function (id) {
      var control = document.getElementById(id);
      if (control) { control.addEventListener("input", function () { applyFilters(table); }); }
    });
    // Shareable views: index.html?q=text&family=f&status=s&sort=header&order=desc
    var params = new URLSearchParams(window.location.search);
    [["q", "filter-text"], ["family", "filter-family"], ["status", "filter-status"]]
      .forEach(function (pair) {
        var value = params.get(pair[0]), control = document.getElementById(pair[1]);
        if (value !== null && control) { control.value = value; }
      });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
      if (th.textContent.trim() === params.get("sort")) {
        sortBy(table, th, index);
        if (params.get("order") === "desc") { sortBy(table, th, index); }
      }
    });
    applyFilters(table);
  }
  function setUpSortable() {
    // Any other table marked data-sortable (the leaderboard's) sorts by a clicked header.
    Array.prototype.forEach.call(document.querySelectorAll("table[data-sortable]"),
      function (table) {
        Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
          th.classList.add("sortable");
          th.addEventListener("click", function () { sortBy(table, th, index); });
        });
      });
  }
  function checkImages() {
    var images = Array.prototype.slice.call(document.images);
    var broken = images.filter(function (img) { return !img.complete || img.naturalWidth === 0; });
    var root = document.documentElement;
    root.setAttribute("data-images", broken.length ? "broken" : "ok");
    root.setAttribute("data-image-count", String(images.length));
    root.setAttribute("data-broken-images", broken.map(function (img) {
      return img.getAttribute("src");
    }).join(" "));
    document.title = document.title + (broken.length ? " [images broken]" : " [images ok]");
  }
  function checkLayout() {
    // Anything wider than its box: a table that needs horizontal scrolling, the page itself,
    // or an equation term scrolled inside its box. Recorded for headless-browser tests.
    var root = document.documentElement, wide = [];
    Array.prototype.forEach.call(document.querySelectorAll(".scroll"), function (box, i) {
      if (box.scrollWidth > box.clientWidth + 1) {
        var table = box.querySelector("table");
        wide.push((table && table.id) || "table-" + i);
      }
    });
    if (root.scrollWidth > root.clientWidth + 1) { wide.push("page"); }
    var clipped = Array.prototype.filter.call(document.querySelectorAll(".term"),
      function (term) { return term.scrollWidth > term.clientWidth + 1; });
    root.setAttribute("data-overflow", wide.join(" "));
    root.setAttribute("data-clipped-terms", String(clipped.length));
  }
  document.addEventListener("DOMContentLoaded", setUpIndex);
  document.addEventListener("DOMContentLoaded", setUpSortable);
  window.addEventListener("load", checkImages);
  window.addEventListener("load", checkLayout);
})();
"""
