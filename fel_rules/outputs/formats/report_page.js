(function () {
  "use strict";
  var root = document.documentElement;
  var table = document.getElementById("documents");
  if (!table) { return; }
  root.classList.add("js");
  var bodies = Array.prototype.slice.call(table.tBodies);
  var texts = bodies.map(function (body) { return body.textContent.toLowerCase(); });
  var search = document.getElementById("search");
  var verdict = document.getElementById("verdict");
  var count = document.getElementById("count");
  var expand = document.getElementById("expand");
  var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
  var expanded = false;
  document.getElementById("controls").hidden = false;

  function filter() {
    var words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    var wanted = verdict.value;
    var shown = 0;
    bodies.forEach(function (body, index) {
      var visible = (!wanted || body.getAttribute("data-verdict") === wanted) &&
        words.every(function (word) { return texts[index].indexOf(word) !== -1; });
      body.hidden = !visible;
      if (visible) { shown += 1; }
    });
    count.textContent = count.getAttribute("data-template")
      .replace("{shown}", String(shown)).replace("{total}", String(bodies.length));
  }

  function sortKey(body, column, numeric) {
    var cell = body.rows[0].cells[column];
    var text = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
    if (!numeric) { return text.toLowerCase(); }
    var number = parseFloat(text);
    return isNaN(number) ? null : number;
  }

  function sortBy(header) {
    var column = headers.indexOf(header);
    var numeric = header.getAttribute("data-type") === "number";
    var direction = header.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    var keyed = bodies.map(function (body, index) {
      return { body: body, key: sortKey(body, column, numeric), index: index };
    });
    keyed.sort(function (a, b) {
      if (a.key === b.key) { return a.index - b.index; }
      if (a.key === null || a.key === "") { return 1; }
      if (b.key === null || b.key === "") { return -1; }
      var order = numeric ? a.key - b.key : a.key.localeCompare(b.key, root.lang, { numeric: true });
      return order === 0 ? a.index - b.index : order * direction;
    });
    headers.forEach(function (other) { other.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", direction === 1 ? "ascending" : "descending");
    keyed.forEach(function (item) { table.appendChild(item.body); });
  }

  function toggle(button, open) {
    var row = document.getElementById(button.getAttribute("aria-controls"));
    if (!row) { return; }
    row.classList.toggle("open", open);
    button.setAttribute("aria-expanded", open ? "true" : "false");
  }

  headers.forEach(function (header) {
    var button = header.querySelector("button");
    if (button) { button.addEventListener("click", function () { sortBy(header); }); }
  });
  table.addEventListener("click", function (event) {
    var button = event.target.closest("button.toggle");
    if (button) { toggle(button, button.getAttribute("aria-expanded") !== "true"); }
  });
  expand.addEventListener("click", function () {
    expanded = !expanded;
    Array.prototype.forEach.call(table.querySelectorAll("button.toggle"), function (button) {
      toggle(button, expanded);
    });
    expand.textContent = expand.getAttribute(expanded ? "data-collapse" : "data-expand");
  });
  Array.prototype.forEach.call(document.querySelectorAll("button.rule"), function (button) {
    button.addEventListener("click", function () {
      search.value = button.getAttribute("data-rule");
      filter();
      table.scrollIntoView({ block: "start" });
    });
  });
  search.addEventListener("input", filter);
  verdict.addEventListener("change", filter);
  filter();
}());
