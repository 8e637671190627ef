// The notation index (/symbols/): a filter box that keeps the symbols and meanings holding every
// word typed, and dims the letters of the bar left with nothing to jump to.
// Without scripts the box stays hidden and the index is whole.
(function () {
  var index = document.querySelector(".eqs");
  if (!index) return;
  var box = index.querySelector(".eqs-filter");
  var input = box.querySelector("input");
  var count = box.querySelector("output");
  var none = index.querySelector(".eqs-none");
  var groups = index.querySelectorAll(".eqs-group");
  var letters = index.querySelectorAll(".eqs-bar a");
  var text = function (node) { return node.textContent.toLowerCase(); };
  // Each symbol (its text, its TeX, its Greek letter) with each of its meanings: a meaning is
  // shown when every word typed is in it or in its symbol.
  var entries = Array.prototype.map.call(index.querySelectorAll(".eqs-list > div"), function (entry) {
    var symbol = entry.querySelector("dt");
    var math = symbol.querySelector("[data-tex]");
    var words = [text(symbol), math ? math.getAttribute("data-tex").toLowerCase() : "",
                 entry.getAttribute("data-find") || ""].join(" ");
    return { node: entry, words: words, meanings: Array.prototype.map.call(
      entry.querySelectorAll("dd"), function (dd) { return { node: dd, words: text(dd) }; }) };
  });

  function apply() {
    var wanted = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    entries.forEach(function (entry) {
      var any = false;
      entry.meanings.forEach(function (meaning) {
        var match = wanted.every(function (word) {
          return entry.words.indexOf(word) >= 0 || meaning.words.indexOf(word) >= 0;
        });
        meaning.node.hidden = !match;
        any = any || match;
      });
      entry.node.hidden = !any;
      if (any) shown++;
    });
    Array.prototype.forEach.call(groups, function (group, i) {
      group.hidden = group.querySelector(".eqs-list > div:not([hidden])") === null;
      letters[i].classList.toggle("eqs-off", group.hidden);
      if (group.hidden) letters[i].setAttribute("aria-disabled", "true");
      else letters[i].removeAttribute("aria-disabled");
    });
    none.hidden = shown > 0;
    count.textContent = wanted.length ? shown + " of " + entries.length + " symbols" : "";
  }

  input.addEventListener("input", apply);
  box.hidden = false;
})();
