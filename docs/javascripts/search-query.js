// The search box's query syntax: "exact phrase", -word to exclude, OR between alternatives,
// and part:<id> / topic:<id> filters; everything else is the query as typed. Pure functions,
// no DOM: the search worker and the tests (QuickJS) load the same file.
var EqQuery = (function () {
  "use strict";

  var PIECE = /"([^"]*)"?|(\S+)/g;       // a quoted phrase (closed or not), or a run of non-space
  var FILTER = /^(part|topic):(\S+)$/i;
  var EXCLUDED = /^-([A-Za-z0-9\u00c0-\uffff].*)$/;  // -word; "-\log" and "- x" stay math

  function alternative() { return {text: [], phrases: []}; }

  // {alternatives: [{text, phrases}], excluded: [word], filters: {part, topic}}; an alternative's
  // text is what was typed outside phrases and syntax, joined by single spaces.
  function parse(query) {
    var current = alternative(), alternatives = [current], excluded = [], filters = {};
    var match;
    PIECE.lastIndex = 0;
    while ((match = PIECE.exec(String(query)))) {
      if (match[1] !== undefined) {
        if (match[1].trim()) current.phrases.push(match[1].trim());
        continue;
      }
      var piece = match[2], found;
      if (piece === "OR") {
        alternatives.push(current = alternative());
      } else if ((found = FILTER.exec(piece))) {
        filters[found[1].toLowerCase()] = found[2].toLowerCase();
      } else if ((found = EXCLUDED.exec(piece))) {
        excluded.push(found[1]);
      } else {
        current.text.push(piece);
      }
    }
    alternatives = alternatives.map(function (a) { return {text: a.text.join(" "), phrases: a.phrases}; })
      .filter(function (a) { return a.text || a.phrases.length; });
    return {alternatives: alternatives, excluded: excluded, filters: filters};
  }

  // Whether a document's part and topic pass the filters: an id, or the start of one.
  function passes(filters, doc) {
    return Object.keys(filters).every(function (kind) {
      var id = doc[kind];
      return typeof id === "string" && id.lastIndexOf(filters[kind], 0) === 0;
    });
  }

  return {parse: parse, passes: passes};
})();
