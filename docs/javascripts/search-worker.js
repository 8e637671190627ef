// The search worker the theme talks to (its message protocol: SETUP -> READY, QUERY -> RESULT),
// answering from our own ranking in search-engine.js instead of lunr.
//
// The theme posts SETUP, then an empty query, on every page load; nothing is downloaded until the
// first real query. The index comes in pieces (search-loader.js): the vocabulary first, then only
// the shards, records and fields that query needs; later queries fetch only what is new to them.
importScripts("search-formula.js", "search-query.js", "search-engine.js", "search-loader.js");

var SETUP = 0, READY = 1, QUERY = 2, RESULT = 3;
var loader = null;
var prefetched = false;  // whether every record was asked for, after the first answer
var latest = "";  // the last query asked: one overtaken while it waited is not answered

function fetchJson(name) {
  return fetch(new URL("../search/" + name, self.location.href)).then(function (response) {
    if (!response.ok) throw new Error("search " + name + ": HTTP " + response.status);
    return response.json();
  });
}

// A card's preview is search/formulas/<card id>.svg (eqcards/pages/search_previews.py).
function previewUrl(location) {
  var id = location.replace(/\/$/, "").split("/").pop();
  return new URL("../search/formulas/" + encodeURIComponent(id) + ".svg", self.location.href).href;
}

// The theme inserts titles and teasers as HTML: everything from the index is escaped here. The
// formula is an image of the card's typeset formula, named by its spoken words, loaded lazily.
function item(result) {
  var text = "";
  if (result.preview) {
    var p = result.preview;
    text += '<img class="eqc-search-formula" loading="lazy" decoding="async" src="' +
      EqSearch.escapeHtml(previewUrl(result.location)) + '" alt="' + EqSearch.escapeHtml(p.label) +
      '" style="width:' + p.width + 'ex;aspect-ratio:' + p.width + '/' + p.height + '">';
  }
  if (result.teaser) text += '<p class="eqc-search-teaser">' + EqSearch.escapeHtml(result.teaser) + "</p>";
  return [{
    location: result.location,
    title: EqSearch.escapeHtml(result.title),
    text: text,
    score: result.score,
    terms: result.terms
  }];
}

// Replies go out in the order queries came in; a query typed over before its turn is skipped.
var queue = Promise.resolve();

addEventListener("message", function (event) {
  var message = event.data;
  if (message.type === SETUP) {
    loader = EqLoader.create(message.data.config, fetchJson);
    postMessage({type: READY});
  } else if (message.type === QUERY) {
    var query = message.data;
    latest = query;
    queue = queue.then(function () {
      if (!query.trim()) {
        postMessage({type: RESULT, data: {items: []}});
        return null;
      }
      if (query !== latest) return null;
      return loader.search(query).then(function (results) {
        if (query === latest) postMessage({type: RESULT, data: {items: results.map(item)}});
        if (!prefetched) {
          prefetched = true;
          loader.prefetch();
        }
      });
    }).catch(function (error) {
      console.warn(error);
      postMessage({type: RESULT, data: {items: []}});
    });
  }
});
