"""After step 5: the report's figures, each a self-contained PNG ``data:`` URI drawn with matplotlib.

No pyplot (no global state, no GUI backend) and no metadata that changes from run to run, so the
same corpus gives the same report.
"""

from __future__ import annotations

import base64
import io
from collections import Counter
from collections.abc import Callable, Mapping

from wikisilver.errors import WikisilverError

TYPE_ORDER = ("PER", "LOC", "ORG", "MISC")  # the CoNLL types, in the order the report shows them

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

# English gold: CoNLL-2003 (Reuters news), the figures of its paper: Tjong Kim Sang & De Meulder,
# "Introduction to the CoNLL-2003 Shared Task", CoNLL 2003, Table 2 (tokens, and named entities
# PER + LOC + ORG + MISC per file). The paper counts entities, not entity tokens, so these are
# compared as entity mentions per token, the measure the silver corpus has as well
# (stats.json sum(entities_by_tag) / tokens_kept).
CONLL2003_TOKENS = {"train": 203_621, "dev": 51_362, "test": 46_435}
CONLL2003_ENTITIES = {"train": 6_600 + 7_140 + 6_321 + 3_438,  # PER, LOC, ORG, MISC
                      "dev": 1_842 + 1_837 + 1_341 + 922, "test": 1_617 + 1_668 + 1_661 + 702}
GOLD_MENTION_DENSITY = {
    f"CoNLL-2003 {split} (en, gold)": round(CONLL2003_ENTITIES[split] / CONLL2003_TOKENS[split], 4)
    for split in ("train", "dev", "test")
}

TAG_COLOURS = {"PER": "#c05fc0", "LOC": "#3a9a3a", "ORG": "#2a9fb0", "MISC": "#c9a21c"}
TAG_BACKGROUNDS = {"PER": "#f6dcf6", "LOC": "#d9f2d9", "ORG": "#d6f1f5", "MISC": "#fbf0c8"}
_OTHER_COLOUR = "#888888"


def require_matplotlib():
    """matplotlib, or the one line that says which extra installs it."""
    try:
        import matplotlib
    except ImportError:
        raise WikisilverError("wikisilver report needs matplotlib: pip install 'wikisilver[report]'") from None
    return matplotlib


def _figure_png(draw: Callable, width: float, height: float) -> str:
    """Draw on a fresh Agg figure and return it as a base64 PNG ``data:`` URI."""
    matplotlib = require_matplotlib()
    matplotlib.use("Agg")
    from matplotlib.figure import Figure  # no pyplot: no global state, no GUI backend

    figure = Figure(figsize=(width, height), dpi=100, layout="constrained")
    draw(figure.subplots())
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _tag_colour(tag: str) -> str:
    return TAG_COLOURS.get(tag, _OTHER_COLOUR)


def plot_tag_distribution(entities_by_tag: Mapping[str, int]) -> str:
    tags = [t for t in TYPE_ORDER if t in entities_by_tag] + sorted(set(entities_by_tag) - set(TYPE_ORDER))

    def draw(ax) -> None:
        counts = [entities_by_tag[t] for t in tags]
        bars = ax.bar(tags, counts, color=[_tag_colour(t) for t in tags])
        ax.bar_label(bars, labels=[f"{c:,}" for c in counts])
        ax.set_ylabel("mentions")
        ax.set_title("Entity mentions by CoNLL type")
    return _figure_png(draw, 6, 3.5)


def plot_ne_density(density: float, label: str, gold: Mapping[str, float] = GOLD_NE_DENSITY,
                    measure: str = "entity tokens / tokens") -> str:
    """This corpus's density next to gold corpora's, in one measure (NerKor's: entity tokens per
    token; CoNLL-2003's: entity mentions per token)."""
    names = [label] + list(gold)
    values = [density] + list(gold.values())

    def draw(ax) -> None:
        bars = ax.barh(names[::-1], values[::-1], color=["#999999"] * len(gold) + ["#3366cc"])
        ax.bar_label(bars, labels=[f"{v:.2%}" for v in values[::-1]], padding=3)
        ax.set_xlabel(measure)
        ax.set_xlim(0, max(values) * 1.25 or 1)
        ax.set_title(f"{measure}: this corpus and gold corpora")
    return _figure_png(draw, 8, 0.9 + 0.4 * len(names))


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
