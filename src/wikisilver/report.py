"""After step 5: a one-file HTML report on a built corpus, for a person to judge it at a glance.

The report puts ``stats.json`` and ``manifest.json`` next to figures computed from the corpus itself
(sentence lengths, the most frequent entities per type, sample sentences with their mentions) and
compares the corpus's NE density (the paper's Table 2 measure) with a gold corpus. The Parquet
parts are streamed batch by batch, so a full Wikipedia's corpus never has to fit in memory.

The HTML is self-contained: CSS inline, plots as base64 PNG, no external URL of any kind, so it can
be mailed or archived as is. Every string that comes from the corpus (tokens, titles, reasons) is
untrusted text and is HTML-escaped.
"""

from __future__ import annotations

import base64
import html
import io
import json
import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from wikisilver.errors import InputError, WikisilverError
from wikisilver.exports import parquet_files, read_corpus_json

CONLL_TYPES = ("PER", "LOC", "ORG", "MISC")

# NE density (entity tokens / tokens) of gold corpora, to compare a silver corpus with.
# Computed once from /work/shared/data/gold/nerkor/train (NYTK-NerKor, CoNLL-U Plus; the column named
# CONLL:NER in each file's `# global.columns` line, IOB2): a token counts as an entity token when its
# tag starts with B- or I- (this leaves out the one bad tag `V` in train/legal/jrc_1.conllup).
# All 640 train files: 55 341 entity tokens of 810 598 tokens; the wikipedia genre alone (125 files,
# Hungarian Wikipedia text, the closest to ours): 22 619 of 176 407.
NERKOR_TRAIN_NE_DENSITY = 0.0683
NERKOR_TRAIN_WIKIPEDIA_NE_DENSITY = 0.1282
GOLD_NE_DENSITY = {
    "NerKor train (hu, gold)": NERKOR_TRAIN_NE_DENSITY,
    "NerKor train, wikipedia genre (hu, gold)": NERKOR_TRAIN_WIKIPEDIA_NE_DENSITY,
}

# Distinct targets kept per type before the rare ones are pruned: a full English corpus links
# millions of titles, and the report only needs the heavy hitters (which survive pruning).
_MAX_TRACKED_TARGETS = 200_000
_BATCH_ROWS = 8_192
_TAG_COLOURS = {"PER": "#c05fc0", "LOC": "#3a9a3a", "ORG": "#2a9fb0", "MISC": "#c9a21c"}
_TAG_BACKGROUNDS = {"PER": "#f6dcf6", "LOC": "#d9f2d9", "ORG": "#d6f1f5", "MISC": "#fbf0c8"}
_OTHER_COLOUR = "#888888"


@dataclass(frozen=True)
class SampleSentence:
    """A sentence shown in the report: tokens and mentions as ``(start, end, conll, target)``."""

    title: str
    page_id: int
    index: int
    tokens: tuple[str, ...]
    spans: tuple[tuple[int, int, str, str | None], ...]
    low_quality: bool


@dataclass(frozen=True)
class CorpusProfile:
    """What the report computes from the Parquet parts (everything else comes from stats.json)."""

    sentences: int
    sentence_lengths: Mapping[int, int]
    top_entities: Mapping[str, tuple[tuple[str, int], ...]]
    samples: tuple[SampleSentence, ...]
    top_exact: bool


@dataclass(frozen=True)
class RejectSummary:
    """Rejected pages of one reason: count in stats.json, records in rejects/, one example."""

    reason: str
    pages: int
    records: int
    example_title: str | None
    example_detail: str | None


class _TopCounter:
    """Counts targets; above a size cap the rarest half is dropped (heavy hitters survive)."""

    def __init__(self, cap: int) -> None:
        self.counts: Counter[str] = Counter()
        self.cap = cap
        self.exact = True

    def add(self, key: str) -> None:
        self.counts[key] += 1
        if len(self.counts) > self.cap:
            self.counts = Counter(dict(self.counts.most_common(self.cap // 2)))
            self.exact = False


def profile_corpus(
    corpus: str | Path, *, samples: int = 10, top: int = 10, seed: int = 0,
    max_tracked: int = _MAX_TRACKED_TARGETS,
) -> CorpusProfile:
    """Stream the Parquet parts of ``corpus`` once: lengths, top targets per type, sample sentences.

    Samples are a seeded reservoir sample of the sentences with at least one mention, so the same
    corpus always gives the same report.
    """
    rng = random.Random(seed)
    lengths: Counter[int] = Counter()
    counters: dict[str, _TopCounter] = {}
    reservoir: list[SampleSentence] = []
    candidates = 0
    sentences = 0
    columns = ["title", "page_id", "sentence_index", "tokens", "spans", "low_quality"]
    for path in parquet_files(corpus):
        try:
            batches = pq.ParquetFile(path).iter_batches(batch_size=_BATCH_ROWS, columns=columns)
            for batch in batches:
                sentences += batch.num_rows
                lengths.update(pc.list_value_length(batch.column("tokens")).to_pylist())
                spans = batch.column("spans")
                flat = pc.list_flatten(spans)
                for conll, target in zip(flat.field("conll").to_pylist(),
                                         flat.field("target").to_pylist()):
                    if target:  # derived words (Turkish → MISC) have no target title
                        counters.setdefault(conll, _TopCounter(max_tracked)).add(target)
                span_counts = pc.list_value_length(spans).to_pylist()
                for row, count in enumerate(span_counts):
                    if not count:
                        continue
                    slot = candidates if candidates < samples else rng.randrange(candidates + 1)
                    candidates += 1
                    if slot < samples:
                        sample = _sample(batch, row)
                        if slot < len(reservoir):
                            reservoir[slot] = sample
                        else:
                            reservoir.append(sample)
        except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError
            raise InputError(str(path), f"unreadable Parquet part ({error})") from None
    top_entities = {
        tag: tuple(counter.counts.most_common(top)) for tag, counter in sorted(counters.items())
    }
    reservoir.sort(key=lambda s: (s.page_id, s.index))
    return CorpusProfile(
        sentences=sentences,
        sentence_lengths=dict(sorted(lengths.items())),
        top_entities=top_entities,
        samples=tuple(reservoir),
        top_exact=all(counter.exact for counter in counters.values()),
    )


def _sample(batch, row: int) -> SampleSentence:
    spans = batch.column("spans")[row].as_py()
    return SampleSentence(
        title=batch.column("title")[row].as_py(),
        page_id=batch.column("page_id")[row].as_py(),
        index=batch.column("sentence_index")[row].as_py(),
        tokens=tuple(batch.column("tokens")[row].as_py()),
        spans=tuple((s["start"], s["end"], s["conll"], s["target"]) for s in spans),
        low_quality=bool(batch.column("low_quality")[row].as_py()),
    )


def _reject_records(corpus: Path) -> Iterator[tuple[Path, int, dict]]:
    folder = corpus / "rejects"
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as error:
                    raise InputError(str(path), f"invalid JSON ({error.msg})", f"line {number}") from None
                if not isinstance(record, dict):
                    raise InputError(str(path), "expected a JSON object", f"line {number}")
                yield path, number, record


def summarize_rejects(corpus: str | Path, stats: Mapping) -> list[RejectSummary]:
    """Rejected pages by reason: stats.json's counts joined with the records of ``rejects/``."""
    records: Counter[str] = Counter()
    examples: dict[str, dict] = {}
    for _path, _number, record in _reject_records(Path(corpus)):
        reason = str(record.get("reason") or "unknown")
        records[reason] += 1
        examples.setdefault(reason, record)
    pages = stats.get("pages_rejected") or {}
    summaries = []
    for reason in sorted(set(pages) | set(records), key=lambda r: (-pages.get(r, records[r]), r)):
        example = examples.get(reason, {})
        summaries.append(RejectSummary(
            reason=reason, pages=int(pages.get(reason, 0)), records=records[reason],
            example_title=example.get("title"), example_detail=example.get("detail"),
        ))
    return summaries


# --------------------------------------------------------------------------- plots


def _figure_png(draw: Callable, width: float, height: float) -> str:
    """Draw on a fresh Agg figure and return it as a base64 PNG ``data:`` URI."""
    try:
        import matplotlib
    except ImportError:
        raise WikisilverError("wikisilver report needs matplotlib (pip install 'matplotlib>=3.7')") from None
    matplotlib.use("Agg")
    from matplotlib.figure import Figure  # no pyplot: no global state, no GUI backend

    figure = Figure(figsize=(width, height), dpi=100, layout="constrained")
    draw(figure.subplots())
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _tag_colour(tag: str) -> str:
    return _TAG_COLOURS.get(tag, _OTHER_COLOUR)


def plot_tag_distribution(entities_by_tag: Mapping[str, int]) -> str:
    tags = [t for t in CONLL_TYPES if t in entities_by_tag] + sorted(set(entities_by_tag) - set(CONLL_TYPES))

    def draw(ax) -> None:
        counts = [entities_by_tag[t] for t in tags]
        bars = ax.bar(tags, counts, color=[_tag_colour(t) for t in tags])
        ax.bar_label(bars, labels=[f"{c:,}" for c in counts])
        ax.set_ylabel("mentions")
        ax.set_title("Entity mentions by CoNLL type")
    return _figure_png(draw, 6, 3.5)


def plot_ne_density(density: float, label: str) -> str:
    names = [label] + list(GOLD_NE_DENSITY)
    values = [density] + list(GOLD_NE_DENSITY.values())

    def draw(ax) -> None:
        bars = ax.barh(names[::-1], values[::-1],
                       color=["#999999"] * len(GOLD_NE_DENSITY) + ["#3366cc"])
        ax.bar_label(bars, labels=[f"{v:.2%}" for v in values[::-1]], padding=3)
        ax.set_xlabel("entity tokens / tokens")
        ax.set_xlim(0, max(values) * 1.25 or 1)
        ax.set_title("NE density: this corpus and gold corpora")
    return _figure_png(draw, 8, 2.6)


def plot_sentence_lengths(lengths: Mapping[int, int], cap: int = 80) -> str:
    clipped: Counter[int] = Counter()
    for length, count in lengths.items():
        clipped[min(length, cap)] += count

    def draw(ax) -> None:
        if clipped:
            ax.bar(list(clipped), list(clipped.values()), width=1.0, color="#3366cc")
        ax.set_xlabel(f"tokens per sentence (last bar: {cap} or more)")
        ax.set_ylabel("sentences")
        ax.set_title("Sentence length")
    return _figure_png(draw, 8, 3.5)


def plot_rules_fired(rules: Mapping[str, int]) -> str:
    ordered = sorted(rules.items(), key=lambda item: (item[1], item[0]))  # biggest at the top

    def draw(ax) -> None:
        names = [name for name, _ in ordered]
        counts = [count for _, count in ordered]
        bars = ax.barh(names, counts, color="#3366cc")
        ax.bar_label(bars, labels=[f"{c:,}" for c in counts], padding=3)
        ax.set_xlim(0, (max(counts) if counts and max(counts) else 1) * 1.15)
        ax.set_xlabel("times fired")
        ax.set_title("Labelling rules fired")
    return _figure_png(draw, 8, 1.2 + 0.28 * max(len(ordered), 1))


# --------------------------------------------------------------------------- HTML


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _n(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) else _e(value if value is not None else "–")


def _total(value: object) -> object:
    return sum(value.values()) if isinstance(value, Mapping) else value


def render_sentence(sample: SampleSentence) -> str:
    """One sentence as HTML: mentions in coloured ``<mark>`` with their type; all text escaped."""
    parts = []
    position = 0
    for start, end, conll, target in sorted(sample.spans):
        if start < position or end > len(sample.tokens) or start >= end:
            continue  # overlapping or broken span: show the tokens plain rather than garble them
        parts.extend(_e(token) for token in sample.tokens[position:start])
        text = _e(" ".join(sample.tokens[start:end]))
        hint = f' title="{_e(target)}"' if target else ""
        tag_class = conll if conll in _TAG_COLOURS else "OTHER"
        parts.append(f'<mark class="ent ent-{tag_class}"{hint}>{text}<sub>{_e(conll)}</sub></mark>')
        position = end
    parts.extend(_e(token) for token in sample.tokens[position:])
    return " ".join(parts)


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:1100px;margin:2em auto;
 padding:0 1em;color:#222;line-height:1.45}
h1{margin-bottom:.2em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:1.8em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.25em .6em;
 text-align:left;vertical-align:top}td.num{text-align:right;font-variant-numeric:tabular-nums}
th{background:#f4f4f4}.meta td:first-child{font-weight:600}img{max-width:100%}
.grid{display:flex;flex-wrap:wrap;gap:1.2em}.grid>div{flex:1 1 230px}
.sentence{margin:.6em 0;padding:.4em .6em;background:#fafafa;border-left:3px solid #ccc}
.sentence .where{color:#666;font-size:.85em}
mark.ent{border-radius:3px;padding:0 .15em}mark.ent sub{font-size:.65em;margin-left:.15em;color:#444}
.note{color:#666;font-size:.9em}
""" + "".join(
    f"mark.ent-{tag}{{background:{_TAG_BACKGROUNDS[tag]};border-bottom:2px solid {_TAG_COLOURS[tag]}}}"
    for tag in _TAG_COLOURS
) + "mark.ent-OTHER{background:#eee;border-bottom:2px solid #888}"


def _table(headers: Sequence[str], rows: Sequence[Sequence[tuple[str, bool]]]) -> str:
    """Rows of ``(already escaped html, is_number)`` cells."""
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f'<td class="num">{c}</td>' if num else f"<td>{c}</td>" for c, num in row) + "</tr>"
        for row in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def _image(uri: str, alt: str) -> str:
    return f'<img src="{uri}" alt="{_e(alt)}">'


def render_report(
    stats: Mapping, manifest: Mapping, profile: CorpusProfile, rejects: Sequence[RejectSummary],
    *, corpus_name: str = "",
) -> str:
    """The whole report as one self-contained HTML document."""
    language = manifest.get("language") or "?"
    dumps = manifest.get("dumps") or []
    dump_rows = "".join(
        f"<tr><td>dump</td><td>{_e(Path(str(d.get('path', ''))).name)} "
        f"({_e(d.get('dbname') or '?')}, dump date {_e(d.get('dump_date') or 'unknown')})</td></tr>"
        for d in dumps
    )
    meta = (
        f'<table class="meta"><tr><td>corpus</td><td>{_e(corpus_name)}</td></tr>'
        f"<tr><td>language</td><td>{_e(language)}</td></tr>{dump_rows}"
        f"<tr><td>built</td><td>{_e(manifest.get('started', '?'))} → {_e(manifest.get('finished', '?'))}</td></tr>"
        f"<tr><td>tool</td><td>{_e(manifest.get('tool', 'wikisilver'))} {_e(manifest.get('version', '?'))}</td></tr>"
        "</table>"
    )
    density = stats.get("ne_density")
    summary_rows = [
        ("pages read", stats.get("pages_read")),
        ("pages used", stats.get("pages_used")),
        ("pages skipped", _total(stats.get("pages_skipped"))),
        ("pages rejected", _total(stats.get("pages_rejected"))),
        ("sentences total", stats.get("sentences_total")),
        ("sentences kept", stats.get("sentences_kept")),
        ("sentences dropped (UNK)", stats.get("sentences_dropped_unk")),
        ("sentences dropped (low quality)", stats.get("sentences_dropped_low_quality")),
        ("sentences flagged low quality", stats.get("sentences_low_quality")),
        ("tokens kept", stats.get("tokens_kept")),
        ("entity tokens", stats.get("entity_tokens")),
        ("NE density", f"{density:.4f} ({density:.2%})" if isinstance(density, float) else density),
    ]
    summary = _table(["", "value"], [[(_e(k), False), (_n(v), True)] for k, v in summary_rows])
    skipped = stats.get("pages_skipped") or {}
    skipped_note = ", ".join(f"{_e(k)}: {_n(v)}" for k, v in sorted(skipped.items()))

    plots = []
    entities_by_tag = stats.get("entities_by_tag") or {}
    if entities_by_tag:
        plots.append(("Entity types", _image(plot_tag_distribution(entities_by_tag), "entity mentions by type")))
    if isinstance(density, (int, float)):
        label = f"this corpus ({language}, silver)"
        plots.append(("NE density", _image(plot_ne_density(float(density), label), "NE density comparison")
                      + '<p class="note">Gold figures: NYTK-NerKor train set, entity tokens / tokens '
                        "(IOB2 <code>CONLL:NER</code> column), computed by wikisilver's authors.</p>"))
    plots.append(("Sentence length", _image(plot_sentence_lengths(profile.sentence_lengths), "sentence length histogram")))

    tops = []
    for tag in [t for t in CONLL_TYPES if t in profile.top_entities] + sorted(set(profile.top_entities) - set(CONLL_TYPES)):
        rows = [[(_e(target), False), (_n(count), True)] for target, count in profile.top_entities[tag]]
        tops.append(f"<div><h3>{_e(tag)}</h3>{_table(['target title', 'mentions'], rows)}</div>")
    top_note = "" if profile.top_exact else (
        '<p class="note">Counts are approximate: rare targets were pruned while counting.</p>')

    rules = stats.get("rules_fired") or {}
    rules_html = _image(plot_rules_fired(rules), "labelling rules fired") if rules else "<p>none recorded</p>"
    if rules:
        plots.append(("Labelling rules", rules_html))

    reject_html = _table(
        ["reason", "pages (stats.json)", "records (rejects/)", "example title", "example detail"],
        [[(_e(r.reason), False), (_n(r.pages), True), (_n(r.records), True),
          (_e(r.example_title or ""), False), (_e((r.example_detail or "")[:200]), False)]
         for r in rejects],
    ) if rejects else "<p>No page was rejected.</p>"

    sample_html = "".join(
        f'<div class="sentence"><div class="where">{_e(s.title)} (page {s.page_id}, sentence {s.index})'
        f'{" — flagged low quality" if s.low_quality else ""}</div>{render_sentence(s)}</div>'
        for s in profile.samples
    ) or "<p>No sentence with an entity mention.</p>"

    plot_html = "".join(f"<h2>{_e(title)}</h2>{body}" for title, body in plots)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>wikisilver report: {_e(corpus_name)}</title><style>{_CSS}</style></head><body>"
        f"<h1>wikisilver corpus report</h1>{meta}"
        f"<h2>Summary</h2>{summary}<p class=\"note\">Skipped pages: {skipped_note or 'none'}. "
        f"Parquet rows read: {profile.sentences:,}.</p>"
        f"{plot_html}"
        f"<h2>Most frequent entities</h2><div class=\"grid\">{''.join(tops) or '<p>none</p>'}</div>{top_note}"
        f"<h2>Rejected pages</h2>{reject_html}"
        f"<h2>Sample sentences</h2>{sample_html}"
        "</body></html>\n"
    )


def write_report(corpus: str | Path, out: str | Path | None = None, *, samples: int = 10,
                 top: int = 10, seed: int = 0) -> Path:
    """Write the HTML report of ``corpus`` to ``out`` (default ``corpus/report.html``)."""
    corpus = Path(corpus)
    if not corpus.is_dir():
        raise InputError(str(corpus), "no such corpus directory")
    stats = read_corpus_json(corpus, "stats.json")
    manifest = read_corpus_json(corpus, "manifest.json")
    profile = profile_corpus(corpus, samples=samples, top=top, seed=seed)
    rejects = summarize_rejects(corpus, stats)
    document = render_report(stats, manifest, profile, rejects, corpus_name=str(corpus))
    target = Path(out) if out is not None else corpus / "report.html"
    try:
        target.write_text(document, encoding="utf-8")
    except OSError as error:
        raise InputError(str(target), f"cannot write the report ({error.strerror})") from None
    return target
