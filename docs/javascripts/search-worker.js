// The search worker the theme talks to (its message protocol: SETUP -> READY, QUERY -> RESULT),
// answering from our own ranking in search-engine.js instead of lunr.
//
// The theme posts SETUP, then an empty query, on every page load; the documents are fetched
// only when the first real query arrives, so a visit that never searches never downloads them.
importScripts("search-engine.js");

var SETUP = 0, READY = 1, QUERY = 2, RESULT = 3;
var config = null;
var index = null;  // a promise of the built index, once a query asked for it

function load() {
  if (!index) {
    var url = new URL("../search/" + config.documents, self.location.href);
    index = fetch(url).then(function (response) {
      if (!response.ok) throw new Error("search documents: HTTP " + response.status);
      return response.json();
    }).then(function (docs) { return EqSearch.build({config: config, docs: docs}); });
  }
  return index;
}

// The theme inserts titles and teasers as HTML: everything from the index is escaped here.
function item(result) {
  return [{
    location: result.location,
    title: EqSearch.escapeHtml(result.title),
    text: EqSearch.escapeHtml(result.teaser),
    score: result.score,
    terms: result.terms
  }];
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
    queue = queue.then(function () {
      return query.trim() ? load().then(function (built) { return EqSearch.search(built, query); }) : [];
    }).then(function (results) {
      postMessage({type: RESULT, data: {items: results.map(item)}});
    }).catch(function (error) {
      console.warn(error);
      index = null;  // try again on the next query
      postMessage({type: RESULT, data: {items: []}});
    });
  }
});
