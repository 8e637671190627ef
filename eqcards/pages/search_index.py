"""The search index as files a query loads piece by piece, so the first search stays small as cards grow.

The worker (docs/javascripts/search-loader.js) first fetches the vocabulary: every indexed word
with how many documents hold it, which typo and prefix matching read whole. It grows with the
distinct words, far slower than the cards. Then it fetches only what the query reaches for:

- shard-<i>.json: the postings of a run of the sorted vocabulary (word -> [doc gap, weight, ...])
  and the spelled names and symbols whose first word is in that run;
- doc-<n>.json: one result's title, summary, address and formula preview size, and
  records.json: all of them, fetched after the first answer so that later queries wait for none;
- fields-<n>.json: a document's fields, for phrase queries ("weight decay");
- grams-<i>.json: for a query written as math, the documents holding each run of three formula
  tokens (by a hash of the run), and formula-<n>.json: the formulas of one of those documents;
- facets.json: every document's part and topic, for part: and topic: filters.

The postings are computed by the same engine the browser ranks with (search-engine.js, run in
QuickJS), so the words, their weights and the ranking cannot drift from what the browser does.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import quickjs

from ..core.config import PAGE_SCRIPTS_DIR

ENGINE_DIR = PAGE_SCRIPTS_DIR
ENGINE_FILES = ("search-formula.js", "search-query.js", "search-engine.js")  # the worker's order
FOLDER = "index/"  # under search/, beside search_index.json
# Characters of JSON per shard before the next word starts a new one. Small enough that a word's
# shard costs a few KB; a frequent word's postings may fill a shard alone.
SHARD_CHARS = 6000

EXPORT = """(config, docs, shardChars) => {
  const index = EqSearch.build({config: config, docs: docs});
  const spelled = (map) => Array.from(map, ([word, list]) => [word, list]);
  const grams = Array.from(index.grams.keys()).sort();
  const size = grams.reduce((total, gram) => total + gram.length + 4 * index.grams.get(gram).length, 0);
  const gramShards = Array.from({length: Math.max(1, Math.ceil(size / shardChars))}, () => ({}));
  grams.forEach((gram) => {
    gramShards[EqSearch.gramShard(gram, gramShards.length)][gram] = index.grams.get(gram);
  });
  return {locations: index.docs.map((d) => d.location), terms: index.vocabulary,
          df: index.vocabulary.map((w) => index.df.get(w)),
          postings: index.vocabulary.map((w) => index.postings.get(w)),
          names: spelled(index.names), symbols: spelled(index.symbols), gramShards: gramShards};
}"""


def engine_pieces(fields: dict[str, float], documents: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole index as the browser's engine builds it from `documents`, in plain lists."""
    context = quickjs.Context()
    for name in ENGINE_FILES:
        context.eval((ENGINE_DIR / name).read_text(encoding="utf-8"))
    call = f"JSON.stringify(({EXPORT})({_json({'fields': fields})}, {_json(documents)}, {SHARD_CHARS}))"
    return json.loads(context.eval(call))


def in_index_order(documents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Documents numbered as the engine numbers them: by address, compared as JavaScript
    compares strings (UTF-16 code units)."""
    return sorted(documents, key=lambda doc: doc["location"].encode("utf-16-be"))


def shard_runs(pieces: dict[str, Any]) -> list[int]:
    """Where each shard starts in the sorted vocabulary: runs of words whose postings, names
    and symbols add up to about SHARD_CHARS characters of JSON."""
    sizes = {word: len(_json(entries)) for kind in ("names", "symbols") for word, entries in pieces[kind]}
    starts, filled = [0], 0
    for number, (word, postings) in enumerate(zip(pieces["terms"], pieces["postings"], strict=True)):
        size = len(word) + 2 * len(postings) + sizes.get(word, 0)
        if filled and filled + size > SHARD_CHARS:
            starts.append(number)
            filled = 0
        filled += size
    return starts


def doc_gaps(docs: list[int]) -> list[int]:
    """Ascending document numbers, each given as its distance from the one before."""
    return [n - previous for previous, n in zip([0, *docs], docs, strict=False)]


def gaps(postings: list[float]) -> list[float]:
    """[doc, weight, ...] with each doc number given as its distance from the one before."""
    out, previous = [], 0
    for i in range(0, len(postings), 2):
        out += [postings[i] - previous, postings[i + 1]]
        previous = postings[i]
    return out


def shards(pieces: dict[str, Any], starts: list[int]) -> Iterator[dict[str, Any]]:
    terms = pieces["terms"]
    names, symbols = dict(pieces["names"]), dict(pieces["symbols"])
    if missing := (set(names) | set(symbols)) - set(terms):
        raise ValueError(f"search index: names filed under words the vocabulary lacks: {sorted(missing)[:5]}")
    for start, end in zip(starts, [*starts[1:], len(terms)], strict=True):
        run = terms[start:end]
        yield {"postings": {word: gaps(pieces["postings"][start + i]) for i, word in enumerate(run)},
               "names": {word: names[word] for word in run if word in names},
               "symbols": {word: symbols[word] for word in run if word in symbols}}


def display_record(doc: dict[str, Any]) -> dict[str, Any]:
    """What a result shows of a document: its address, title, summary and formula preview."""
    record = {"location": doc["location"], "title": doc["title"], "teaser": doc.get("teaser", "")}
    return {**record, **({"preview": doc["preview"]} if "preview" in doc else {})}


def write_index(search_dir: Path, fields: dict[str, float],
                documents: list[dict[str, Any]]) -> dict[str, Any]:
    """Write the index files under search/index/ (replacing any from a build before) and return
    the settings the worker needs to find them."""
    documents = in_index_order(documents)
    pieces = engine_pieces(fields, documents)
    if pieces["locations"] != [doc["location"] for doc in documents]:
        raise ValueError("search index: the engine numbers the documents differently from search_index.py")
    folder = search_dir / FOLDER
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    starts = shard_runs(pieces)
    vocabulary = {"terms": pieces["terms"], "df": pieces["df"], "shards": starts,
                  "gramShards": len(pieces["gramShards"])}
    files: dict[str, Any] = {"vocabulary.json": vocabulary}
    files.update({f"shard-{i}.json": shard for i, shard in enumerate(shards(pieces, starts))})
    records = [display_record(doc) for doc in documents]
    files.update({f"doc-{n}.json": record for n, record in enumerate(records)})
    files["records.json"] = records
    files.update({f"fields-{n}.json": doc["fields"] for n, doc in enumerate(documents)})
    files.update({f"grams-{i}.json": {gram: doc_gaps(docs) for gram, docs in shard.items()}
                  for i, shard in enumerate(pieces["gramShards"])})
    files.update({f"formula-{n}.json": list(doc["fields"].get("tex", [])) for n, doc in enumerate(documents)})
    files["facets.json"] = [[doc["part"], doc["topic"]] if "part" in doc else None for doc in documents]
    for name, value in files.items():
        (folder / name).write_text(_json(value), encoding="utf-8")
    return {"fields": fields, "count": len(documents), "folder": FOLDER}


def read_documents(search_dir: Path, settings: dict[str, Any]) -> list[dict[str, Any]]:
    """The documents back from the files write_index wrote, in index order (for the tests, which
    rank them in memory too, and for the benchmark, which multiplies them)."""
    folder = search_dir / settings["folder"]
    facets = json.loads((folder / "facets.json").read_text(encoding="utf-8"))
    documents = []
    for n in range(settings["count"]):
        doc = json.loads((folder / f"doc-{n}.json").read_text(encoding="utf-8"))
        if facets[n]:
            doc["part"], doc["topic"] = facets[n]
        fields = json.loads((folder / f"fields-{n}.json").read_text(encoding="utf-8"))
        documents.append({**doc, "fields": fields})
    return documents


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
