// Formula search: a tokenizer that understands LaTeX and Greek, and a field-weighted ranking
// with prefix and typo matching; formula queries ranked by structure (search-formula.js), the
// query syntax read by search-query.js, both loaded before this file. Pure functions, no DOM:
// the search worker uses it in the browser and the tests run it in QuickJS (tests/pages/test_search.py).
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
  var STOP = new Set(["a", "an", "and", "the", "of", "in", "on", "for", "to", "is", "by", "with", "as",
                      "at", "or", "be", "it"]);

  function normalize(text) {
    var out = String(text).replace(/\u1d40/g, "^T ").normalize("NFKD")  // U+1D40 is a superscript T
      .replace(/(\S)([\u0302-\u0305])/g, function (m, base, mark) { return ACCENTS[mark] + base; })
      .replace(/[\u0300-\u036f]/g, "")
      .replace(/[^\x00-\x7f]/g, function (ch) { return TYPED[ch] !== undefined ? TYPED[ch] : ch; })
      .replace(/\s+([_^])/g, "$1");
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

  var COMPOUND = /[_^]/;

  // The words of a text in order, stop words dropped; a word is stemmed unless it is a symbol
  // with a sub- or superscript (d_k, qk^t), which is kept as written.
  function words(text) {
    var out = [];
    normalize(text).split(SPLIT).forEach(function (raw) {
      var word = raw.replace(/^[_^]+|[_^]+$/g, "");
      if (word && !STOP.has(word)) out.push(COMPOUND.test(word) ? word : stem(word));
    });
    return out;
  }

  // Other spellings of a symbol: d_k is also "dk", and "d" and "k".
  function symbolVariants(word) {
    return [word.replace(/[_^]/g, "")].concat(word.split(/[_^]+/).filter(Boolean));
  }

  // What the index stores: every word, and each symbol's other spellings as well, so "d_k",
  // "dk" and "d k" all find it.
  function tokenize(text) {
    var out = [];
    words(text).forEach(function (word) {
      out.push(word);
      if (COMPOUND.test(word)) out.push.apply(out, symbolVariants(word));
    });
    return out;
  }

  // The words of a query: each once, in the order typed.
  function queryWords(query) {
    return Array.from(new Set(words(query)));
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

  // The index: docs [{location, title, teaser, names}], postings Map word -> flat
  // [doc, weight, doc, weight, ...], idf Map word -> weight. Maps, not objects, so a word
  // such as "constructor" is just a word.
  function build(data) {
    var weights = (data.config && data.config.fields) || {};
    var docs = [];
    var postings = new Map();
    data.docs.forEach(function (doc, n) {
      var fields = doc.fields || {};
      // A name the same as the title is left out of the index (eqcards/pages/search.py, split_text).
      if (fields.name === undefined) fields = Object.assign({name: doc.title}, fields);
      var score = new Map();
      Object.keys(weights).forEach(function (field) {
        var counts = new Map();
        asList(fields[field]).forEach(function (value) {
          tokenize(value).forEach(function (word) { counts.set(word, (counts.get(word) || 0) + 1); });
        });
        counts.forEach(function (count, word) {
          // Saturating term frequency: the tenth mention adds little over the second.
          score.set(word, (score.get(word) || 0) + weights[field] * 2 * count / (count + 1));
        });
      });
      score.forEach(function (value, word) {
        var list = postings.get(word);
        if (!list) postings.set(word, list = []);
        list.push(n, value);
      });
      var spell = function (text) { return queryWords(text).join(" "); };
      docs.push({location: doc.location, title: doc.title, teaser: doc.teaser || "",
                 part: doc.part, topic: doc.topic, preview: doc.preview, fields: fields,
                 names: [fields.name].concat(asList(fields.alias)).filter(Boolean).map(spell),
                 symbols: asList(fields.symbol).map(spell),
                 formulas: asList(fields.tex).map(EqFormula.tokens)});
    });
    var idf = new Map();
    postings.forEach(function (list, word) {
      var df = list.length / 2;
      idf.set(word, Math.log(1 + (docs.length - df + 0.5) / (df + 0.5)));
    });
    return {docs: docs, postings: postings, idf: idf, vocabulary: Array.from(postings.keys())};
  }

  // Index words a query word stands for, each with how much it counts: itself, words it
  // begins (when long enough to mean something), and words one or two typos away.
  function expand(index, word, isLast) {
    var found = new Map();
    var offer = function (term, weight) {
      if (index.postings.has(term) && !(found.get(term) >= weight)) found.set(term, weight);
    };
    offer(word, 1);
    var prefixFrom = isLast ? 1 : 3;
    var typos = word.length >= 8 ? 2 : word.length >= 4 ? 1 : 0;
    if (COMPOUND.test(word)) {
      // A symbol the index spells differently (beta_t against \beta_{t-1}): its joined
      // spelling counts almost fully, its parts a little.
      typos = 0;
      symbolVariants(word).forEach(function (variant, i) { offer(variant, i === 0 ? 0.9 : 0.3); });
    }
    index.vocabulary.forEach(function (term) {
      if (term === word) return;
      if (word.length >= prefixFrom && term.length > word.length && term.lastIndexOf(word, 0) === 0) {
        offer(term, 0.6 * word.length / term.length + 0.2);
      } else if (typos && editDistance(word, term, typos) <= typos) {
        offer(term, 0.5);
      }
    });
    return found;
  }

  function escapeHtml(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;");
  }

  // Each document that matched any word of `words`: Map doc -> {score, covered, terms}, where
  // covered is the share of the words it matched, and a card named by the words or defining them
  // as a symbol counts more.
  function wordScores(index, words) {
    var perDoc = new Map();  // doc -> {score, hits: Set of query words it matched}
    var resolved = [];  // each word as the index spells it: the best of its matches
    words.forEach(function (word, position) {
      var matches = expand(index, word, position === words.length - 1);
      var ranked = Array.from(matches.keys()).sort(function (a, b) {
        return matches.get(b) - matches.get(a) || index.postings.get(b).length - index.postings.get(a).length;
      });
      resolved.push(ranked.length ? ranked[0] : word);
      var best = new Map();
      matches.forEach(function (strength, term) {
        var weight = strength * index.idf.get(term);
        var list = index.postings.get(term);
        for (var i = 0; i < list.length; i += 2) {
          var value = weight * list[i + 1];
          if (!(best.get(list[i]) >= value)) best.set(list[i], value);
        }
      });
      best.forEach(function (value, doc) {
        var entry = perDoc.get(doc);
        if (!entry) perDoc.set(doc, entry = {score: 0, hits: new Set()});
        entry.score += value;
        entry.hits.add(word);
      });
    });
    var phrase = resolved.join(" ");
    var scores = new Map();
    perDoc.forEach(function (entry, n) {
      var doc = index.docs[n];
      var covered = entry.hits.size / words.length;
      var score = entry.score * covered * covered;
      // The query is the card's name or one of its aliases: that card is what was meant.
      if (doc.names.indexOf(phrase) >= 0) score *= 3;
      else if (doc.names.some(function (name) { return name.lastIndexOf(phrase, 0) === 0; })) score *= 1.5;
      // The query is a whole symbol the card defines (β, d_k): the card's own notation.
      if (doc.symbols.indexOf(phrase) >= 0) score *= 2;
      var terms = Object.create(null);
      words.forEach(function (word) { terms[word] = entry.hits.has(word); });
      scores.set(n, {score: score, covered: covered, terms: terms});
    });
    return scores;
  }

  // A formula query shorter than this many tokens (β, d_k's "d _ k" is three) is ranked by its
  // words alone: too short to have a structure worth matching.
  var FORMULA_TOKENS = 3;
  var FLOOR = 0.02;  // results scoring under this share of the best one are not listed

  // Whether a document's words hold a phrase's words, in order and unbroken, within one field.
  function hasPhrase(doc, phrase) {
    if (doc.phraseText === undefined) {
      var values = [];
      Object.keys(doc.fields).forEach(function (field) {
        asList(doc.fields[field]).forEach(function (value) { values.push(words(value).join(" ")); });
      });
      doc.phraseText = " " + values.join(" | ") + " ";
    }
    return doc.phraseText.indexOf(" " + words(phrase).join(" ") + " ") >= 0;
  }

  // One alternative of a query ranked: [{n, run, score, terms}]. A query written as math is
  // matched against each card's formulas as a token sequence (search-formula.js): cards holding
  // the longest unbroken run of it come first, ties broken by the word ranking; a document
  // matching none of its structure is listed only if it matched every word.
  function rankAlternative(index, alternative) {
    var queryText = [alternative.text].concat(alternative.phrases).join(" ");
    var terms = queryWords(queryText);
    var scores = terms.length ? wordScores(index, terms) : new Map();
    var formula = EqFormula.isFormula(alternative.text) ? EqFormula.tokens(alternative.text) : [];
    var out = [];
    if (formula.length >= FORMULA_TOKENS) {
      index.docs.forEach(function (doc, n) {
        var run = 0;
        doc.formulas.forEach(function (tokens) { run = Math.max(run, EqFormula.longestRun(formula, tokens)); });
        var entry = scores.get(n);
        if (run >= FORMULA_TOKENS) {
          var allTerms = Object.create(null);
          terms.forEach(function (word) { allTerms[word] = run === formula.length || !!(entry && entry.terms[word]); });
          out.push({n: n, run: run, score: entry ? entry.score : 0, terms: allTerms});
        } else if (entry && entry.covered === 1) {
          out.push({n: n, run: 0, score: entry.score, terms: entry.terms});
        }
      });
    } else {
      scores.forEach(function (entry, n) { out.push({n: n, run: 0, score: entry.score, terms: entry.terms}); });
    }
    var top = out.reduce(function (best, r) { return r.run ? best : Math.max(best, r.score); }, 0);
    return out.filter(function (r) {
      return (r.run || r.score >= top * FLOOR) && alternative.phrases.every(function (p) {
        return hasPhrase(index.docs[r.n], p);
      });
    });
  }

  function better(a, b) {
    return a.run - b.run || a.score - b.score;
  }

  // Ranked documents for a query (syntax in search-query.js): [{location, title, teaser,
  // preview, score, terms}], best first.
  function search(index, query, limit) {
    var parsed = EqQuery.parse(query);
    var best = new Map();
    if (parsed.alternatives.length) {
      parsed.alternatives.forEach(function (alternative) {
        rankAlternative(index, alternative).forEach(function (r) {
          if (!best.has(r.n) || better(r, best.get(r.n)) > 0) best.set(r.n, r);
        });
      });
    } else if (Object.keys(parsed.filters).length) {  // filters alone: every document they pass
      index.docs.forEach(function (doc, n) { best.set(n, {n: n, run: 0, score: 0, terms: {}}); });
      limit = limit || index.docs.length;
    }
    var excluded = new Set();
    parsed.excluded.forEach(function (word) {
      queryWords(word).forEach(function (term) {
        var list = index.postings.get(term) || [];
        for (var i = 0; i < list.length; i += 2) excluded.add(list[i]);
      });
    });
    var results = [];
    best.forEach(function (r, n) {
      var doc = index.docs[n];
      if (excluded.has(n) || !EqQuery.passes(parsed.filters, doc)) return;
      results.push({location: doc.location, title: doc.title, teaser: doc.teaser, preview: doc.preview,
                    run: r.run, score: r.score, terms: r.terms});
    });
    results.sort(function (a, b) {
      return better(b, a) || (a.location < b.location ? -1 : 1);
    });
    return results.slice(0, limit || 50);
  }

  return {normalize: normalize, tokenize: tokenize, queryWords: queryWords,
          editDistance: editDistance, build: build, search: search, escapeHtml: escapeHtml};
})();
