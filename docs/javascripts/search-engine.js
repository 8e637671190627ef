// Formula search: a tokenizer that understands LaTeX and Greek, and a field-weighted ranking
// with prefix and typo matching. Pure functions, no DOM: the search worker uses it in the
// browser and the tests run it in QuickJS (tests/test_search.py).
var EqSearch = (function () {
  "use strict";

  var GREEK_NAMES = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ϵ": "epsilon",
    "ζ": "zeta", "η": "eta", "θ": "theta", "ϑ": "theta", "ι": "iota", "κ": "kappa",
    "λ": "lambda", "μ": "mu", "ν": "nu", "ξ": "xi", "π": "pi", "ρ": "rho", "σ": "sigma",
    "ς": "sigma", "τ": "tau", "υ": "upsilon", "φ": "phi", "ϕ": "phi", "χ": "chi", "ψ": "psi",
    "ω": "omega", "Γ": "gamma", "Δ": "delta", "Θ": "theta", "Λ": "lambda", "Ξ": "xi",
    "Π": "pi", "Σ": "sigma", "Φ": "phi", "Ψ": "psi", "Ω": "omega"
  };
  // Typed symbols become the LaTeX they stand for, so "p_θ" and "p_\theta" are one word.
  var TYPED = {"√": "\\sqrt ", "∑": "\\sum ", "∏": "\\prod ", "∇": "\\nabla ", "∞": "\\infty ",
               "⊤": "^t "};
  // Accents that change a symbol's meaning (ᾱ is \bar\alpha); any other mark is dropped (é is e).
  var ACCENTS = {"\u0302": "\\hat ", "\u0303": "\\tilde ", "\u0304": "\\bar ", "\u0305": "\\bar "};
  Object.keys(GREEK_NAMES).forEach(function (ch) { TYPED[ch] = "\\" + GREEK_NAMES[ch] + " "; });
  // Font and text wrappers say how a letter looks, not what it is: \mathrm{KL} is KL.
  var WRAPPERS = /\\(?:operatorname\*?|math(?:rm|bf|cal|bb|it|sf|tt|frak|scr)|text(?:rm|bf|it|sf|tt)?|boldsymbol|bm|mbox)\s*\{([^{}]*)\}/g;
  var TRANSPOSE = /\^\s*(?:\{\s*\\?(?:top|intercal|t|mathsf\{t\})\s*\}|\\(?:top|intercal)(?![a-z])|t(?![a-z]))/g;
  var TIGHT_SCRIPT = /([_^])\s*\{\s*([a-z0-9]+)\s*\}/g;   // d_{k} -> d_k
  var SCRIPT_COMMAND = /([_^])\s*\\([a-z]+)/g;              // w_\theta -> w_theta
  var COMMAND = /\\([a-z]+)/g;
  var SPLIT = /[^a-z0-9_^]+/;
  var STOP = {"a": 1, "an": 1, "and": 1, "the": 1, "of": 1, "in": 1, "on": 1, "for": 1, "to": 1,
              "is": 1, "by": 1, "with": 1, "as": 1, "at": 1, "or": 1, "be": 1, "it": 1};

  function normalize(text) {
    var out = "";
    var decomposed = String(text).replace(/\u1d40/g, "^T ").normalize("NFKD")  // U+1D40 is a superscript T
      .replace(/(\S)([\u0302-\u0305])/g, function (m, base, mark) { return ACCENTS[mark] + base; })
      .replace(/[\u0300-\u036f]/g, "");
    for (var ch of decomposed) out += TYPED[ch] !== undefined ? TYPED[ch] : ch;
    out = out.replace(/\s+([_^])/g, "$1");
    out = out.replace(WRAPPERS, " $1 ").toLowerCase();
    // Run twice: a wrapper may sit inside another (\mathrm{\mathbf{x}}).
    out = out.replace(WRAPPERS, " $1 ");
    out = out.replace(TRANSPOSE, "^t ").replace(SCRIPT_COMMAND, "$1$2")
      .replace(TIGHT_SCRIPT, "$1$2").replace(COMMAND, " $1");
    return out;
  }

  // Plural "s" only: enough for "divergences", safe for formula names like "relu" or "adam".
  function stem(word) {
    if (word.length < 4 || /[^a-z]/.test(word)) return word;
    if (/ies$/.test(word)) return word.slice(0, -3) + "y";
    if (/(?:ss|us|is)$/.test(word)) return word;
    if (/s$/.test(word)) return word.slice(0, -1);
    return word;
  }

  // Words in order; a symbol like d_k or qk^t is kept whole and also yields its parts, so
  // "d_k", "dk" and "d k" all find it.
  function tokenize(text) {
    var words = [];
    normalize(text).split(SPLIT).forEach(function (raw) {
      var word = raw.replace(/^[_^]+|[_^]+$/g, "");
      if (!word || STOP[word]) return;
      if (/[_^]/.test(word)) {
        words.push(word);
        words.push(word.replace(/[_^]/g, ""));
        word.split(/[_^]+/).forEach(function (part) { if (part) words.push(part); });
      } else {
        words.push(stem(word));
      }
    });
    return words;
  }

  // The words of a query: like tokenize, but each word once and in order typed.
  function queryWords(query) {
    var seen = {};
    var words = [];
    normalize(query).split(SPLIT).forEach(function (raw) {
      var word = raw.replace(/^[_^]+|[_^]+$/g, "");
      if (!word || STOP[word]) return;
      word = /[_^]/.test(word) ? word : stem(word);
      if (!seen[word]) { seen[word] = 1; words.push(word); }
    });
    return words;
  }

  // Optimal string alignment distance, stopping early once it exceeds `limit`.
  function editDistance(a, b, limit) {
    if (Math.abs(a.length - b.length) > limit) return limit + 1;
    var prev2 = null, prev = [], cur;
    for (var j = 0; j <= b.length; j++) prev.push(j);
    for (var i = 1; i <= a.length; i++) {
      cur = [i];
      var best = i;
      for (var k = 1; k <= b.length; k++) {
        var cost = a[i - 1] === b[k - 1] ? 0 : 1;
        var v = Math.min(prev[k] + 1, cur[k - 1] + 1, prev[k - 1] + cost);
        if (prev2 && i > 1 && k > 1 && a[i - 1] === b[k - 2] && a[i - 2] === b[k - 1])
          v = Math.min(v, prev2[k - 2] + 1);
        cur.push(v);
        if (v < best) best = v;
      }
      if (best > limit) return limit + 1;
      prev2 = prev; prev = cur;
    }
    return prev[b.length];
  }

  function asList(value) {
    if (value === undefined || value === null) return [];
    return Array.isArray(value) ? value : [value];
  }

  // index = {weights, docs: [{location, title, teaser, names: [[word...]]}], terms: {word: [[doc, weight]]}, idf}
  function build(data) {
    var weights = (data.config && data.config.fields) || {};
    var docs = [];
    var postings = {};
    data.docs.forEach(function (doc, n) {
      var fields = doc.fields || {};
      var score = {};
      Object.keys(weights).forEach(function (field) {
        var counts = {};
        asList(fields[field]).forEach(function (value) {
          tokenize(value).forEach(function (word) { counts[word] = (counts[word] || 0) + 1; });
        });
        Object.keys(counts).forEach(function (word) {
          // Saturating term frequency: the tenth mention adds little over the second.
          var tf = counts[word] / (counts[word] + 1);
          score[word] = (score[word] || 0) + weights[field] * tf * 2;
        });
      });
      Object.keys(score).forEach(function (word) {
        (postings[word] = postings[word] || []).push([n, score[word]]);
      });
      var names = [fields.name].concat(asList(fields.alias)).filter(Boolean)
        .map(function (name) { return queryWords(name).join(" "); });
      docs.push({location: doc.location, title: doc.title, teaser: doc.teaser || "", names: names});
    });
    var idf = {};
    var total = docs.length;
    Object.keys(postings).forEach(function (word) {
      idf[word] = Math.log(1 + (total - postings[word].length + 0.5) / (postings[word].length + 0.5));
    });
    return {docs: docs, postings: postings, idf: idf, vocabulary: Object.keys(postings)};
  }

  // Index words a query word stands for, each with how much it counts: itself, words it
  // begins (when long enough to mean something), and words one or two typos away.
  function expand(index, word, isLast) {
    var found = {};
    if (index.postings[word]) found[word] = 1;
    var prefixFrom = isLast ? 1 : 3;
    var typos = word.length >= 8 ? 2 : word.length >= 4 ? 1 : 0;
    if (/[_^]/.test(word)) {
      // A symbol the index spells differently (beta_t against \beta_{t-1}): its parts count a little.
      typos = 0;
      var joined = word.replace(/[_^]/g, "");
      if (index.postings[joined]) found[joined] = 0.9;
      word.split(/[_^]+/).forEach(function (part) {
        if (part && index.postings[part] && !found[part]) found[part] = 0.3;
      });
    }
    index.vocabulary.forEach(function (term) {
      if (term === word) return;
      if (word.length >= prefixFrom && term.length > word.length && term.lastIndexOf(word, 0) === 0) {
        found[term] = Math.max(found[term] || 0, 0.6 * word.length / term.length + 0.2);
      } else if (typos && editDistance(word, term, typos) <= typos) {
        found[term] = Math.max(found[term] || 0, 0.5);
      }
    });
    return found;
  }

  function escapeHtml(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;");
  }

  // Ranked documents for a query: [{location, title, teaser, score, terms}], best first.
  function search(index, query, limit) {
    var words = queryWords(query);
    if (!words.length) return [];
    var perDoc = {};
    var resolved = [];  // each word as the index spells it: the best of its matches
    words.forEach(function (word, position) {
      var matches = expand(index, word, position === words.length - 1);
      resolved.push(Object.keys(matches).sort(function (a, b) {
        return matches[b] - matches[a] || index.postings[b].length - index.postings[a].length;
      })[0] || word);
      var best = {};
      Object.keys(matches).forEach(function (term) {
        var weight = matches[term] * index.idf[term];
        index.postings[term].forEach(function (posting) {
          var value = weight * posting[1];
          if (!best[posting[0]] || best[posting[0]] < value) best[posting[0]] = value;
        });
      });
      Object.keys(best).forEach(function (doc) {
        var entry = perDoc[doc] = perDoc[doc] || {score: 0, hits: {}};
        entry.score += best[doc];
        entry.hits[word] = true;
      });
    });
    var phrase = resolved.join(" ");
    var results = Object.keys(perDoc).map(function (n) {
      var doc = index.docs[n];
      var entry = perDoc[n];
      var covered = Object.keys(entry.hits).length / words.length;
      var score = entry.score * covered * covered;
      // The query is the card's name or one of its aliases: that card is what was meant.
      if (doc.names.indexOf(phrase) >= 0) score *= 3;
      else if (doc.names.some(function (name) { return name.lastIndexOf(phrase, 0) === 0; })) score *= 1.5;
      var terms = {};
      words.forEach(function (word) { terms[word] = !!entry.hits[word]; });
      return {location: doc.location, title: doc.title, teaser: doc.teaser, score: score, terms: terms};
    });
    results.sort(function (a, b) { return b.score - a.score || (a.location < b.location ? -1 : 1); });
    if (results.length) {
      var floor = results[0].score * 0.02;
      results = results.filter(function (r) { return r.score >= floor; });
    }
    return results.slice(0, limit || 50);
  }

  return {normalize: normalize, tokenize: tokenize, queryWords: queryWords,
          editDistance: editDistance, build: build, search: search, escapeHtml: escapeHtml};
})();
