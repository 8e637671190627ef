// Loads the pieces of the search index a query needs, and only those: first the vocabulary (the
// index's words, which typo and prefix matching read whole), then, as the ranking asks for them
// (search-engine.js, index.want), the shards holding the postings of the words matched, each
// result's display record, and for formula, phrase or filter queries the formulas sharing a
// run of tokens with the query, the fields of the phrase's candidates, or parts and topics. The layout of the files is eqcards/pages/search_index.py's. Pure of the DOM:
// the search worker and the tests (QuickJS, with a fetch of their own) load the same file.
var EqLoader = (function () {
  "use strict";

  var ROUNDS = 8;  // a query needs three rounds at most (shards, then fields and records); more is a bug

  // config: the settings of search_index.json ({count, folder}); fetchJson(path)
  // gives a promise of a file's JSON, path relative to the search folder.
  function create(config, fetchJson) {
    var files = new Map();  // path -> promise of its JSON, each file fetched once
    var index = null, vocabulary = null;

    function file(name) {
      var path = config.folder + name;
      if (!files.has(path)) {
        files.set(path, fetchJson(path).catch(function (error) { files.delete(path); throw error; }));
      }
      return files.get(path);
    }

    function start() {
      if (!vocabulary) {
        vocabulary = file("vocabulary.json").then(function (terms) {
          index = EqSearch.partial(config.count, terms);
          return index;
        }).catch(function (error) { vocabulary = null; throw error; });
      }
      return vocabulary;
    }

    function load(want) {
      var loads = [];
      want.shard.forEach(function (number) {
        loads.push(file("shard-" + number + ".json").then(function (shard) { EqSearch.addShard(index, number, shard); }));
      });
      want.doc.forEach(function (n) {
        loads.push(file("doc-" + n + ".json").then(function (doc) { EqSearch.addDoc(index, n, doc); }));
      });
      want.fields.forEach(function (n) {
        loads.push(file("fields-" + n + ".json").then(function (fields) { EqSearch.addFields(index, n, fields); }));
      });
      want.gramShard.forEach(function (number) {
        loads.push(file("grams-" + number + ".json").then(function (grams) { EqSearch.addGramShard(index, number, grams); }));
      });
      want.formula.forEach(function (n) {
        loads.push(file("formula-" + n + ".json").then(function (texs) { EqSearch.addFormula(index, n, texs); }));
      });
      if (want.facets) loads.push(file("facets.json").then(function (f) { EqSearch.addFacets(index, f); }));
      return Promise.all(loads);
    }

    // Every document's record in one file, for the worker to fetch once its first answer is out:
    // later queries then wait for no record, only for the shards of words no query matched before.
    function prefetch() {
      return start().then(function () { return file("records.json"); }).then(function (records) {
        records.forEach(function (doc, n) { EqSearch.addDoc(index, n, doc); });
      }).catch(function () { /* no harm: each result's record is then fetched on its own */ });
    }

    // A promise of the query's results, ranked as the whole index in memory would rank them.
    function search(query) {
      return start().then(function () {
        var round = 0;
        var attempt = function () {
          var results = EqSearch.search(index, query);
          var want = EqSearch.wanted(index);
          if (!want) return results;
          if (++round > ROUNDS) throw new Error("search: the index still lacks pieces after " + ROUNDS + " loads");
          return load(want).then(attempt);
        };
        return attempt();
      });
    }

    return {search: search, prefetch: prefetch};
  }

  return {create: create};
})();
