"""After step 5: a one-file HTML report on a built corpus, for a person to judge it at a glance.

The report puts ``stats.json`` and ``manifest.json`` next to figures computed from the corpus itself
(:mod:`wikisilver.report.profile`: sentence lengths, the most frequent entities per type, sample
sentences with their mentions) and compares the corpus's NE density (the paper's Table 2 measure)
with a gold corpus (:mod:`wikisilver.report.plots`).

The HTML is self-contained: CSS inline, plots as base64 PNG, no external URL of any kind, so it can
be mailed or archived as is. Every string that comes from the corpus (tokens, titles, reasons) is
untrusted text and is HTML-escaped.
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from wikisilver import paths
from wikisilver.corpus.card import wiki_name
from wikisilver.corpus.read import read_corpus_json
from wikisilver.errors import InputError
from wikisilver.outputs import Output, check_output, open_output
from wikisilver.report.plots import (
    GOLD_MENTION_DENSITY,
    TAG_BACKGROUNDS,
    TAG_COLOURS,
    TYPE_ORDER,
    plot_ne_density,
    plot_rules_fired,
    plot_sentence_lengths,
    plot_tag_distribution,
    require_matplotlib,
)
from wikisilver.report.profile import CorpusProfile, RejectSummary, SampleSentence, profile_corpus, summarize_rejects
from wikisilver.stats import unread_words

# How every report page starts: what tells a report of ours from another file at its default path.
_REPORT_HEAD = '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>wikisilver report: '


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
        tag_class = conll if conll in TAG_COLOURS else "OTHER"
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
.note{color:#666;font-size:.9em}.warnings{color:#8a4b00}
""" + "".join(
    f"mark.ent-{tag}{{background:{TAG_BACKGROUNDS[tag]};border-bottom:2px solid {TAG_COLOURS[tag]}}}"
    for tag in TAG_COLOURS
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
    wiki = wiki_name(manifest)
    dump_rows = "".join(
        f"<tr><td>dump</td><td>{_e(Path(str(d.get('path', ''))).name)} "
        f"({_e(wiki)}{_e(_header_note(d, wiki))}, dump date {_e(d.get('dump_date') or 'unknown')})</td></tr>"
        for d in dumps
    )
    meta = (
        f'<table class="meta"><tr><td>corpus</td><td>{_e(corpus_name)}</td></tr>'
        f"<tr><td>wiki</td><td>{_e(wiki)} (articles on {_e(language)}.wikipedia.org)</td></tr>"
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
    second = stats.get("second_pass")
    if second:  # a build with --second-pass
        summary_rows[6:6] = [
            ("sentences kept by the second pass", second.get("recovered", 0)),
            ("entities added by the second pass", second.get("entities", 0)),
            ("dropped by it: model disagrees / unsure",
             f"{second.get('dropped.disagrees', 0):,} / {second.get('dropped.low_confidence', 0):,}"),
            ("dropped by it: a form the first pass never saw / knows as another type",
             f"{second.get('dropped.unknown_form', 0):,} / {second.get('dropped.disagrees_known', 0):,}"),
        ]
    if stats.get("bytes_skipped"):  # corrupt blocks of a dump were skipped (0 pages_unread_estimate: unknown)
        summary_rows[1:1] = [("pages unread (estimate)", unread_words(stats)),
                             ("compressed bytes skipped", stats["bytes_skipped"])]
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
        tokens = stats.get("tokens_kept") or 0
        if tokens and entities_by_tag:
            mentions = sum(entities_by_tag.values()) / tokens
            plots.append(("Entity mentions per token, next to English gold", _image(
                plot_ne_density(mentions, label, GOLD_MENTION_DENSITY, "entity mentions / tokens"),
                "entity mentions per token compared with CoNLL-2003")
                + '<p class="note">Gold figures: CoNLL-2003 English, named entities and tokens per file as '
                  "published in Tjong Kim Sang &amp; De Meulder (2003), Table 2.</p>"))
    plots.append(("Sentence length", _image(plot_sentence_lengths(profile.sentence_lengths), "sentence length histogram")))

    tops = []
    for tag in [t for t in TYPE_ORDER if t in profile.top_entities] + sorted(set(profile.top_entities) - set(TYPE_ORDER)):
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
    warnings = "".join(f"<li>{_e(warning)}</li>" for warning in stats.get("warnings") or ())
    warning_html = f'<h2>Warnings</h2><ul class="warnings">{warnings}</ul>' if warnings else ""
    return (
        f"{_REPORT_HEAD}{_e(corpus_name)}</title><style>{_CSS}</style></head><body>"
        f"<h1>wikisilver corpus report</h1>{meta}{warning_html}"
        f"<h2>Summary</h2>{summary}<p class=\"note\">Skipped pages: {skipped_note or 'none'}. "
        f"Parquet rows read: {profile.sentences:,}.</p>"
        f"{plot_html}"
        f"<h2>Most frequent entities</h2><div class=\"grid\">{''.join(tops) or '<p>none</p>'}</div>{top_note}"
        f"<h2>Rejected pages</h2>{reject_html}"
        f"<h2>Sample sentences</h2>{sample_html}"
        "</body></html>\n"
    )


def _header_note(dump: Mapping, wiki: str) -> str:
    header = dump.get("dbname")
    return f"; its <siteinfo> says {header}" if header and header != wiki else ""


def write_report(corpus: str | Path, out: str | Path | Output | None = None, *, samples: int = 10,
                 top: int = 10, seed: int = 0) -> Output:
    """Write the HTML report of ``corpus`` to ``out``, as :mod:`wikisilver.outputs` writes (``-``,
    a pipe, an object store too), checked before the corpus is read. By default the report goes
    beside the corpus, never into it (:func:`default_report_path`), and replaces a file there only
    if it is a wikisilver report."""
    paths.check_remote(corpus)
    if isinstance(out, (str, Path)):
        paths.check_remote(str(out), output=True)
    corpus = paths.normalize(corpus) if paths.is_remote(corpus) else Path(corpus)
    if out is None:
        out = default_report_path(corpus)
        if paths.exists(out) and not _is_report(out if paths.is_remote(out) else Path(out)):
            raise InputError(str(out), "exists and is not a wikisilver report: refused, never replaced; "
                                       "pass --out FILE.html to write the report elsewhere")
    target = check_output(out, what="the report")
    require_matplotlib()
    if not paths.isdir(corpus):
        raise InputError(str(corpus), "no such corpus directory")
    stats = read_corpus_json(corpus, "stats.json")
    manifest = read_corpus_json(corpus, "manifest.json")
    profile = profile_corpus(corpus, samples=samples, top=top, seed=seed)
    rejects = summarize_rejects(corpus, stats)
    document = render_report(stats, manifest, profile, rejects, corpus_name=str(corpus))
    with open_output(target, newline=None) as handle:
        handle.write(document)
    return target


def default_report_path(corpus: str | Path) -> str:
    """``<corpus>.report.html``, beside the corpus folder: a build owns its folder's files
    (wikisilver.ownership), and a report inside it would outlive the corpus it describes."""
    return paths.absolute(str(corpus)).rstrip("/") + ".report.html"


def _is_report(path: str | Path) -> bool:
    """Whether ``path`` is a plain file starting as :func:`render_report`'s pages do."""
    if not paths.is_remote(path) and (os.path.islink(path) or not os.path.isfile(path)):
        return False
    try:
        with paths.open_read(path) as handle:
            head = handle.read(200)
    except OSError:
        return False
    return head.startswith(_REPORT_HEAD.encode())
