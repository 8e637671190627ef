// The search worker the theme talks to (its message protocol: SETUP -> READY, QUERY -> RESULT),
// answering from our own ranking in search-engine.js instead of lunr.
//
// The theme posts SETUP, then an empty query, on every page load; nothing is downloaded until the
// first real query. That query is answered from the compact documents (names, aliases, symbols,
// formulas, summaries); the prose is fetched next, and once it is in, the last query is answered
// again from the whole index if that changes its results.
importScripts("search-formula.js", "search-query.js", "search-engine.js");

var SETUP = 0, READY = 1, QUERY = 2, RESULT = 3;
var config = null;
var compact = null;  // a promise of the index without prose, once a query asked for it
var full = null;     // the whole index, once the prose is in
var latest = "";     // the last query asked, and the locations answered for it
var answered = "";

function fetchJson(name) {
  return fetch(new URL("../search/" + name, self.location.href)).then(function (response) {
    if (!response.ok) throw new Error("search " + name + ": HTTP " + response.status);
    return response.json();
  });
}

function load() {
  if (!compact) {
    compact = fetchJson(config.documents).then(function (docs) {
      var index = EqSearch.build({config: config, docs: docs});
      // The prose after the first answer: the next turn of the event loop, not before it.
      setTimeout(function () { loadText(docs); }, 0);
      return index;
    });
  }
  return full ? Promise.resolve(full) : compact;
}

function loadText(docs) {
  fetchJson(config.text).then(function (texts) {
    var whole = docs.map(function (doc, n) {
      return Object.assign({}, doc, {fields: Object.assign({}, doc.fields, {text: texts[n] || ""})});
    });
    full = EqSearch.build({config: config, docs: whole});
    if (latest.trim()) answer(latest, full, true);
  }).catch(function (error) { console.warn(error); });
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

function answer(query, index, onlyIfChanged) {
  var results = EqSearch.search(index, query);
  var locations = results.map(function (r) { return r.location; }).join(" ");
  if (onlyIfChanged && locations === answered) return;
  answered = locations;
  postMessage({type: RESULT, data: {items: results.map(item)}});
}

// Replies go out in the order queries came in, each after the index is ready.
var queue = Promise.resolve();

addEventListener("message", function (event) {
  var message = event.data;
  if (message.type === SETUP) {
    config = message.data.config;
    postMessage({type: READY});
  } else if (message.type === QUERY) {
    var query = message.data;
    latest = query;
    queue = queue.then(function () {
      if (!query.trim()) {
        answered = "";
        postMessage({type: RESULT, data: {items: []}});
        return null;
      }
      return load().then(function (index) { answer(query, index, false); });
    }).catch(function (error) {
      console.warn(error);
      compact = null;  // try again on the next query
      postMessage({type: RESULT, data: {items: []}});
    });
  }
});
