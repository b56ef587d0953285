/* Speed, in one place: seven scans of text in C, each the twin of a regular expression that runs where
 * this module was not built.
 *
 * spans(search, specials, abbreviations, text, start, end[, words[, base]]) -> list of (start, end)
 *   The token spans TextProcessor.tokenize gives for text[start:end] with a treebank pattern
 *   (and, where ``words`` is a list, each token's text appended to it), less ``base`` (a
 *   sentence's tokens relative to its start: small integers, which Python shares)
 *   (wikisilver.text.tokens.treebank_pattern under skipping_spaces). Three kinds of token make
 *   most of a text, and for them every alternative of that pattern but one is known to fail:
 *   - a plain word: a run of word characters followed by none of the characters any other
 *     alternative could go on with, the pattern's first alternative (PLAIN_WORD; its greedy run can
 *     only end where the run ends, as a shorter one is followed by a word character);
 *   - a word before a period and white space (or the end), the end of a sentence: the word itself,
 *     unless the word and its period are one of ``abbreviations`` (every abbreviation of the pack,
 *     each with its period) or the word is one capital A-Z (an initial, "J. K."). The other
 *     alternatives need more after the period: a digit (1.5), a letter (U.S.), "@" (an address),
 *     "'t" (n't), "-" or "’" (a compound, O'Brien);
 *   - a mark on its own: a character that is neither a word character nor white space and not one
 *     of ``specials`` (wikisilver.text.tokens.treebank_specials: + - ' ’ and the first characters
 *     of the pack's abbreviations and elisions), with which no alternative but the last ([^\w\s])
 *     may start; and a period before white space or the end (not "..", not ".x@y.org").
 *   This loop takes the white space and such a token itself; anywhere else it calls ``search``
 *   (the bound search method of the whole skipping pattern) from where the last token ended, as
 *   re.finditer would, and takes that match's token. \w, \s and \d are the re module's own tests
 *   for str patterns (Py_UNICODE_ISALNUM or "_", Py_UNICODE_ISSPACE, Py_UNICODE_ISDECIMAL), so the
 *   tokens are the expression's; tests/test_text.py holds the two equal on real and random text.
 *
 * word_counts(text, wanted=None) -> dict of word -> count
 *   Counter(_WORD.findall(text)) of wikisilver.labels.text_evidence (with ``wanted``, a set: of
 *   the words in it alone, the others never made strings) (_WORD: a run of word
 *   characters, apostrophes and hyphens that starts with a letter, [^\W\d_], after none of them),
 *   as a dict: each maximal run of [\w'’-] whose first character is a word character but not a
 *   decimal digit or "_" (a run that starts otherwise holds no match at all: every later position
 *   has one of them before it). tests/test_labels.py holds the two equal.
 *
 * line_markup(text) -> list of (start, end)
 *   The matches of wikisilver.wikitext.markup._LINE_MARKUP (at line starts only: a heading line's
 *   content, a table row with its line break, a rule's four dashes or more at the very start, list
 *   and indent markers with the blanks around them), which the pre-pass removes; each line is
 *   read once (the expression was tried at every character). tests/test_wikitext.py holds the
 *   two equal.
 *
 * brace_spans(text, max_depth) -> (spans, unmatched), or None past max_depth open elements
 *   The brace matching of wikisilver.wikitext.markup._strip_templates (its Python loop over
 *   _BRACE_RUN, runs of two or more "{" or "}"): an opening run is an element with its braces to
 *   spend, a closing run spends 3 (where both have 3) or 2 from the innermost open element; spans
 *   are the closed elements' [start, end) in closing order, unmatched the closing runs' leftovers
 *   where nothing is open, then the elements never closed (their braces); tests/test_wikitext.py
 *   holds the two equal.
 *
 * after_word_counts(text, wanted=None) -> dict of word -> count
 *   Counter(_AFTER_WORD.findall(text)) of wikisilver.labels.text_evidence (``wanted``: as for
 *   word_counts), as a dict: the word after
 *   each word and a space (a comma between them allowed), where the word before is a maximal run of
 *   [\w'’-] that holds a letter ([^\W\d_]: the possessive [\d_'’-]*+ before it gives nothing back)
 *   and the word after starts with a letter (its maximal run); tests/test_labels.py holds the two
 *   equal.
 *
 * rank_names(text, ranks) -> list of (rank, name)
 *   The (rank, name) groups of re.finditer over text of taxon_o's pattern in
 *   wikisilver.labels.text_evidence, (?<![\w-])(R1|R2|...)\s+([A-Z][a-z]+)(?![\w-]), ``ranks``
 *   its alternatives in the pattern's order (sorted): at each position not after a word character
 *   or "-", the first rank written there that white space, a capital A-Z and a run of a-z follow,
 *   with no word character or "-" after the run (the greedy runs can only end where they end: a
 *   shorter one is followed by the character that continued it); the scan goes on after the match.
 *   tests/test_labels.py holds the two equal.
 *
 * space_runs(text, start, end) -> list of (start, end)
 *   The spans of re.finditer(r"\s(?:\s+|(?<=[^ \n]))", text, start, end) of
 *   wikisilver.wikitext.clean (_CHANGED_SPACE): each maximal run of white space (\s: Py_UNICODE_ISSPACE)
 *   inside [start, end) of two characters or more, or of one that is neither a space nor a line
 *   break (the lookbehind: the run's only character is one of them). tests/test_wikitext.py holds
 *   the two equal.
 *
 * Where this module was not built, TextProcessor.tokenize runs the expression alone, and
 * common_noun_unk, taxon_o and the cleaner's white space run their own.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* The first alternative of a treebank pattern, as tokens.py writes it (checked there). */
#define PLAIN_WORD "\\w+(?![\\w.@'\xe2\x80\x99\xe2\x80\x90:/+-]|,\\d)"

/* \w of a str pattern; an ASCII character by the table (Unicode's alphanumerics below 128 are
 * [A-Za-z0-9]), any other by Unicode's four tests, as re does. */
static int is_word(Py_UCS4 c) { return c < 128 ? Py_ISALNUM(c) || c == '_' : Py_UNICODE_ISALNUM(c); }

/* A character after a word that another alternative could continue with: . @ ' ’ ‐ : / + - */
static int continues(Py_UCS4 c) {
    switch (c) {
    case '.': case '@': case '\'': case 0x2019: case 0x2010: case ':': case '/': case '+': case '-':
        return 1;
    default:
        return 0;
    }
}

static int append_based(PyObject *out, Py_ssize_t s, Py_ssize_t e, PyObject *text, PyObject *words,
                        Py_ssize_t base) {
    PyObject *span = PyTuple_New(2);
    if (span == NULL) return -1;
    PyObject *first = PyLong_FromSsize_t(s - base), *last = PyLong_FromSsize_t(e - base);
    if (first == NULL || last == NULL) {
        Py_XDECREF(first);
        Py_XDECREF(last);
        Py_DECREF(span);
        return -1;
    }
    PyTuple_SET_ITEM(span, 0, first);
    PyTuple_SET_ITEM(span, 1, last);
    int failed = PyList_Append(out, span);
    Py_DECREF(span);
    if (failed || words == NULL) return failed;
    PyObject *word = PyUnicode_Substring(text, s, e);
    if (word == NULL) return -1;
    failed = PyList_Append(words, word);
    Py_DECREF(word);
    return failed;
}

static int append_span(PyObject *out, Py_ssize_t s, Py_ssize_t e, PyObject *text, PyObject *words) {
    return append_based(out, s, e, text, words, 0);
}

/* The token of the expression's own search from ``pos``: 1 and (*s, *e, *next) where it found
 * one, 0 where it found none (the end), -1 on an error. */
static int search_token(PyObject *search, PyObject *text, Py_ssize_t pos, Py_ssize_t end, Py_ssize_t *s,
                        Py_ssize_t *e, Py_ssize_t *next) {
    PyObject *match = PyObject_CallFunction(search, "Onn", text, pos, end);
    if (match == NULL) return -1;
    if (match == Py_None) {
        Py_DECREF(match);
        return 0;
    }
    PyObject *group = PyObject_CallMethod(match, "span", "i", 1);
    PyObject *whole = group == NULL ? NULL : PyObject_CallMethod(match, "end", NULL);
    Py_DECREF(match);
    if (whole == NULL) {
        Py_XDECREF(group);
        return -1;
    }
    *s = PyLong_AsSsize_t(PyTuple_GET_ITEM(group, 0));
    *e = PyLong_AsSsize_t(PyTuple_GET_ITEM(group, 1));
    *next = PyLong_AsSsize_t(whole);
    Py_DECREF(group);
    Py_DECREF(whole);
    if (PyErr_Occurred()) return -1;
    return *s >= 0; /* group 1 unset: the \Z alternative, the end */
}

/* Whether text[q:e] is one of ``abbreviations`` (-1 on an error). */
static int is_abbreviation(PyObject *abbreviations, PyObject *text, Py_ssize_t q, Py_ssize_t e) {
    PyObject *word = PyUnicode_Substring(text, q, e);
    if (word == NULL) return -1;
    int found = PySequence_Contains(abbreviations, word);
    Py_DECREF(word);
    return found;
}

static PyObject *spans(PyObject *self, PyObject *args) {
    PyObject *search, *specials, *abbreviations, *text, *words = Py_None;
    Py_ssize_t start, end, base = 0;
    if (!PyArg_ParseTuple(args, "OUOUnn|On", &search, &specials, &abbreviations, &text, &start, &end, &words, &base))
        return NULL;
    if (words == Py_None) {
        words = NULL;
    } else if (!PyList_Check(words)) {
        PyErr_SetString(PyExc_TypeError, "words must be a list or None");
        return NULL;
    }
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    if (end > length) end = length;
    if (start < 0) start = 0;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    int special_kind = PyUnicode_KIND(specials);
    const void *special_data = PyUnicode_DATA(specials);
    Py_ssize_t special_count = PyUnicode_GET_LENGTH(specials);
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    Py_ssize_t pos = start;
    while (pos < end) {
        Py_ssize_t q = pos;
        while (q < end && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, q))) q++;
        if (q >= end) break; /* only white space left: the expression's \Z match, no token */
        Py_UCS4 c = PyUnicode_READ(kind, data, q);
        Py_ssize_t r = -1; /* the end of a token taken here */
        if (is_word(c)) {
            Py_ssize_t w = q + 1;
            while (w < end && is_word(PyUnicode_READ(kind, data, w))) w++;
            Py_UCS4 after = w < end ? PyUnicode_READ(kind, data, w) : 0;
            if (w == end) {
                r = w;
            } else if (!continues(after) &&
                       !(after == ',' && w + 1 < end && Py_UNICODE_ISDECIMAL(PyUnicode_READ(kind, data, w + 1)))) {
                r = w;
            } else if (after == '.' && (w + 1 == end || Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, w + 1))) &&
                       !(w - q == 1 && c >= 'A' && c <= 'Z')) {
                int known = is_abbreviation(abbreviations, text, q, w + 1);
                if (known < 0) goto error;
                if (!known) r = w;
            }
        } else {
            int special = 0;
            for (Py_ssize_t k = 0; k < special_count && !special; k++)
                special = PyUnicode_READ(special_kind, special_data, k) == c;
            if (!special && (c != '.' || q + 1 == end || Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, q + 1))))
                r = q + 1;
        }
        if (r >= 0) {
            if (append_based(out, q, r, text, words, base) < 0) goto error;
            pos = r;
            continue;
        }
        Py_ssize_t s, e, next;
        int found = search_token(search, text, pos, end, &s, &e, &next);
        if (found < 0) goto error;
        if (found == 0 || next <= pos) break; /* the end (every token is one character or more) */
        if (append_based(out, s, e, text, words, base) < 0) goto error;
        pos = next;
    }
    return out;
error:
    Py_DECREF(out);
    return NULL;
}

static int in_word(Py_UCS4 c) { return is_word(c) || c == '\'' || c == 0x2019 || c == '-'; }

/* [^\W\d_]: a word character but not a decimal digit or "_" */
static int is_letter(Py_UCS4 c) { return is_word(c) && c != '_' && !Py_UNICODE_ISDECIMAL(c); }

/* Which words a count keeps: all (wanted NULL), or those of a set, looked up only where the word's
 * length and first character are those of a word in it (most words are not; a lookup makes a
 * string of the word first). */
typedef struct {
    PyObject *wanted;
    unsigned char lengths[64];  /* bit k of lengths[k >> 3]: a wanted word of k characters (k < 512) */
    unsigned char firsts[128];  /* bit c % 1024: a wanted word starts with c */
    int long_words;             /* a wanted word of 512 characters or more */
} Wanted;

static int wanted_init(Wanted *w, PyObject *wanted) {
    memset(w, 0, sizeof(*w));
    if (wanted == NULL || wanted == Py_None) return 0;
    if (!PyAnySet_Check(wanted)) {
        PyErr_SetString(PyExc_TypeError, "wanted must be a set or frozenset of str, or None");
        return -1;
    }
    w->wanted = wanted;
    PyObject *iterator = PyObject_GetIter(wanted), *item;
    if (iterator == NULL) return -1;
    while ((item = PyIter_Next(iterator)) != NULL) {
        if (PyUnicode_Check(item) && PyUnicode_GET_LENGTH(item) > 0) {
            Py_ssize_t n = PyUnicode_GET_LENGTH(item);
            if (n < 512) w->lengths[n >> 3] |= (unsigned char)(1 << (n & 7));
            else w->long_words = 1;
            Py_UCS4 c = PyUnicode_READ_CHAR(item, 0) % 1024;
            w->firsts[c >> 3] |= (unsigned char)(1 << (c & 7));
        }
        Py_DECREF(item);
    }
    Py_DECREF(iterator);
    return PyErr_Occurred() ? -1 : 0;
}

/* counts[text[i:j]] += 1 where the word is wanted; -1 on an error */
static int count_word(PyObject *counts, PyObject *text, Py_ssize_t i, Py_ssize_t j, const Wanted *w) {
    if (w->wanted != NULL) {
        Py_ssize_t n = j - i;
        Py_UCS4 c = PyUnicode_READ_CHAR(text, i) % 1024;
        if (!(n < 512 ? w->lengths[n >> 3] & (1 << (n & 7)) : w->long_words) || !(w->firsts[c >> 3] & (1 << (c & 7))))
            return 0;
    }
    PyObject *word = PyUnicode_Substring(text, i, j);
    if (word == NULL) return -1;
    if (w->wanted != NULL) {
        int found = PySet_Contains(w->wanted, word);
        if (found <= 0) {
            Py_DECREF(word);
            return found;
        }
    }
    PyObject *seen = PyDict_GetItemWithError(counts, word); /* borrowed */
    PyObject *count = NULL;
    if (seen != NULL) {
        Py_ssize_t n = PyLong_AsSsize_t(seen);
        count = n < 0 ? NULL : PyLong_FromSsize_t(n + 1);
    } else if (!PyErr_Occurred()) {
        count = PyLong_FromLong(1);
    }
    int failed = count == NULL || PyDict_SetItem(counts, word, count) < 0;
    Py_XDECREF(count);
    Py_DECREF(word);
    return failed ? -1 : 0;
}

/* The counts of word_counts (after == 0) and after_word_counts (after == 1), one scan of the runs
 * of [\w'’-]; with ``wanted`` (a set), of its words alone. */
static PyObject *counted_runs(PyObject *args, int after) {
    PyObject *text, *wanted_in = NULL;
    if (!PyArg_ParseTuple(args, "U|O", &text, &wanted_in)) return NULL;
    Wanted wanted;
    if (wanted_init(&wanted, wanted_in) < 0) return NULL;
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    PyObject *counts = PyDict_New();
    if (counts == NULL) return NULL;
    Py_ssize_t i = 0;
    while (i < length) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (!in_word(c)) {
            i++;
            continue;
        }
        /* the run; for the words after a word, whether a letter follows its [\d_'’-] (the
         * possessive runs of _AFTER_WORD take it whole) */
        Py_ssize_t j = i, letter = -1;
        for (; j < length; j++) {
            Py_UCS4 d = PyUnicode_READ(kind, data, j);
            if (!in_word(d)) break;
            if (letter < 0 && is_letter(d)) letter = j;
        }
        if (!after) {
            if (is_letter(c) && count_word(counts, text, i, j, &wanted) < 0) goto error;
        } else if (letter >= 0) {
            Py_ssize_t p = j < length && PyUnicode_READ(kind, data, j) == ',' ? j + 1 : j;
            if (p + 1 < length && PyUnicode_READ(kind, data, p) == ' ' && is_letter(PyUnicode_READ(kind, data, p + 1))) {
                Py_ssize_t e = p + 2;
                while (e < length && in_word(PyUnicode_READ(kind, data, e))) e++;
                if (count_word(counts, text, p + 1, e, &wanted) < 0) goto error;
            }
        }
        i = j;
    }
    return counts;
error:
    Py_DECREF(counts);
    return NULL;
}

static PyObject *word_counts(PyObject *self, PyObject *args) { return counted_runs(args, 0); }

static PyObject *after_word_counts(PyObject *self, PyObject *args) { return counted_runs(args, 1); }

static int after_word(Py_UCS4 c) { return is_word(c) || c == '-'; }

static PyObject *rank_names(PyObject *self, PyObject *args) {
    PyObject *text, *ranks;
    if (!PyArg_ParseTuple(args, "UO!", &text, &PyTuple_Type, &ranks)) return NULL;
    Py_ssize_t length = PyUnicode_GET_LENGTH(text), count = PyTuple_GET_SIZE(ranks);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_UCS4 firsts[64]; /* each rank's first character: most positions start none */
    if (count > 64) {
        PyErr_SetString(PyExc_ValueError, "at most 64 ranks");
        return NULL;
    }
    for (Py_ssize_t r = 0; r < count; r++) {
        PyObject *rank = PyTuple_GET_ITEM(ranks, r);
        if (!PyUnicode_Check(rank) || PyUnicode_GET_LENGTH(rank) == 0) {
            PyErr_SetString(PyExc_ValueError, "ranks must be non-empty strings");
            return NULL;
        }
        firsts[r] = PyUnicode_READ_CHAR(rank, 0);
    }
    unsigned char starts[128] = {0}; /* an ASCII character that starts some rank */
    int wide = 0;                    /* some rank starts with a character beyond ASCII */
    for (Py_ssize_t r = 0; r < count; r++) {
        if (firsts[r] < 128) starts[firsts[r]] = 1;
        else wide = 1;
    }
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    Py_ssize_t p = 0;
    while (p < length) {
        Py_UCS4 first = PyUnicode_READ(kind, data, p);
        if ((first < 128 ? !starts[first] : !wide) || (p > 0 && after_word(PyUnicode_READ(kind, data, p - 1)))) {
            p++;
            continue;
        }
        Py_ssize_t end = -1, name_start = 0;
        PyObject *rank = NULL;
        for (Py_ssize_t r = 0; r < count && end < 0; r++) {
            if (firsts[r] != first) continue;
            rank = PyTuple_GET_ITEM(ranks, r);
            Py_ssize_t n = PyUnicode_GET_LENGTH(rank);
            if (p + n > length || PyUnicode_Tailmatch(text, rank, p, p + n, -1) != 1) continue;
            Py_ssize_t q = p + n;
            while (q < length && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, q))) q++;
            if (q == p + n || q >= length) continue;
            Py_UCS4 c = PyUnicode_READ(kind, data, q);
            if (c < 'A' || c > 'Z') continue;
            Py_ssize_t e = q + 1;
            while (e < length && (c = PyUnicode_READ(kind, data, e)) >= 'a' && c <= 'z') e++;
            if (e == q + 1 || (e < length && after_word(PyUnicode_READ(kind, data, e)))) continue;
            end = e;
            name_start = q;
        }
        if (end < 0) {
            p++;
            continue;
        }
        PyObject *name = PyUnicode_Substring(text, name_start, end);
        PyObject *pair = name == NULL ? NULL : PyTuple_Pack(2, rank, name);
        Py_XDECREF(name);
        if (pair == NULL || PyList_Append(out, pair) < 0) {
            Py_XDECREF(pair);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(pair);
        p = end;
    }
    return out;
}

static PyObject *space_runs(PyObject *self, PyObject *args) {
    PyObject *text;
    Py_ssize_t start, end;
    if (!PyArg_ParseTuple(args, "Unn", &text, &start, &end)) return NULL;
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    if (start < 0) start = 0;
    if (end > length) end = length;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    Py_ssize_t i = start;
    while (i < end) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (!Py_UNICODE_ISSPACE(c)) {
            i++;
            continue;
        }
        Py_ssize_t run = i + 1;
        while (run < end && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, run))) run++;
        if ((run - i >= 2 || (c != ' ' && c != '\n')) && append_span(out, i, run, text, NULL) < 0) {
            Py_DECREF(out);
            return NULL;
        }
        i = run;
    }
    return out;
}

static int append_pair(PyObject *out, Py_ssize_t s, Py_ssize_t e) { return append_span(out, s, e, NULL, NULL); }

static PyObject *brace_spans(PyObject *self, PyObject *args) {
    PyObject *text;
    Py_ssize_t max_depth;
    if (!PyArg_ParseTuple(args, "Un", &text, &max_depth)) return NULL;
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t *starts = NULL, *left = NULL, depth = 0;
    PyObject *spans = PyList_New(0), *unmatched = PyList_New(0), *result = NULL;
    if (spans == NULL || unmatched == NULL) goto done;
    starts = PyMem_Malloc((max_depth + 1) * sizeof(Py_ssize_t));
    left = PyMem_Malloc((max_depth + 1) * sizeof(Py_ssize_t));
    if (starts == NULL || left == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t i = 0;
    while (i < length) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c != '{' && c != '}') {
            i++;
            continue;
        }
        Py_ssize_t j = i + 1;
        while (j < length && PyUnicode_READ(kind, data, j) == c) j++;
        Py_ssize_t run = j - i;
        if (run < 2) {
            i = j;
            continue;
        }
        if (c == '{') {
            if (depth == max_depth) { /* one more would be too deep: the caller's budget error */
                Py_INCREF(Py_None);
                result = Py_None;
                goto done;
            }
            starts[depth] = i;
            left[depth] = run;
            depth++;
        } else {
            Py_ssize_t end = i;
            while (run >= 2 && depth) {
                Py_ssize_t spend = left[depth - 1] >= 3 && run >= 3 ? 3 : 2;
                left[depth - 1] -= spend;
                run -= spend;
                end += spend;
                if (left[depth - 1] < 2) {
                    depth--;
                    if (append_pair(spans, starts[depth], end) < 0) goto done;
                }
            }
            if (run && !depth && append_pair(unmatched, j - run, j) < 0) goto done;
        }
        i = j;
    }
    for (Py_ssize_t k = 0; k < depth; k++)
        if (append_pair(unmatched, starts[k], starts[k] + left[k]) < 0) goto done;
    result = PyTuple_Pack(2, spans, unmatched);
done:
    PyMem_Free(starts);
    PyMem_Free(left);
    Py_XDECREF(spans);
    Py_XDECREF(unmatched);
    return result;
}

static int is_blank(Py_UCS4 c) { return c == ' ' || c == '\t'; }

static PyObject *line_markup(PyObject *self, PyObject *args) {
    PyObject *text;
    if (!PyArg_ParseTuple(args, "U", &text)) return NULL;
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    for (Py_ssize_t start = 0; start < length;) {
        Py_ssize_t eol = start;
        while (eol < length && PyUnicode_READ(kind, data, eol) != '\n') eol++;
        Py_ssize_t k = start, end = -1;
        while (k < eol && is_blank(PyUnicode_READ(kind, data, k))) k++;
        Py_UCS4 c = k < eol ? PyUnicode_READ(kind, data, k) : 0;
        if (c == '=') { /* a heading: "=" first and last, white space around */
            Py_ssize_t last = eol;
            while (last > k && is_blank(PyUnicode_READ(kind, data, last - 1))) last--;
            if (last - k >= 2 && PyUnicode_READ(kind, data, last - 1) == '=') end = eol;
        } else if (c == '|' || c == '!') { /* a table row, its line break too */
            end = eol < length ? eol + 1 : eol;
        } else if (c == '-' && k == start) { /* a rule: four dashes or more at the very start */
            Py_ssize_t m = start;
            while (m < eol && PyUnicode_READ(kind, data, m) == '-') m++;
            if (m - start >= 4) end = m;
        } else if (c == '*' || c == '#' || c == ':' || c == ';') { /* list and indent markers */
            Py_ssize_t m = k;
            while (m < eol) {
                Py_UCS4 d = PyUnicode_READ(kind, data, m);
                if (d != '*' && d != '#' && d != ':' && d != ';') break;
                m++;
            }
            while (m < eol && is_blank(PyUnicode_READ(kind, data, m))) m++;
            end = m;
        }
        if (end >= 0 && append_span(out, start, end, NULL, NULL) < 0) {
            Py_DECREF(out);
            return NULL;
        }
        start = eol + 1;
    }
    return out;
}

static PyObject *plain_word(PyObject *self, PyObject *unused) { return PyUnicode_FromString(PLAIN_WORD); }

static PyMethodDef methods[] = {
    {"spans", spans, METH_VARARGS, "The token spans of a treebank pattern (see the module's source)."},
    {"plain_word", plain_word, METH_NOARGS, "The first alternative of the patterns this module scans."},
    {"word_counts", word_counts, METH_VARARGS, "The count of each word of a text (see the module's source)."},
    {"line_markup", line_markup, METH_VARARGS, "The line markup the pre-pass removes (see the module's source)."},
    {"brace_spans", brace_spans, METH_VARARGS, "The closed and unmatched brace runs of templates (see the module's source)."},
    {"after_word_counts", after_word_counts, METH_VARARGS, "The count of each word after a word (see the module's source)."},
    {"rank_names", rank_names, METH_VARARGS, "The (rank, name) pairs of taxon_o's pattern (see the module's source)."},
    {"space_runs", space_runs, METH_VARARGS, "The white space runs the cleaner changes (see the module's source)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_scan", NULL, -1, methods};

PyMODINIT_FUNC PyInit__scan(void) { return PyModule_Create(&module); }
