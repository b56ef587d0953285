/* Speed, in one place: the English tagger's scoring of a batch of sentences, compiled.
 *
 * decode: the same arithmetic as the position loop of wikisilver.text.fast_tagger.DenseScorer.tag_many
 * (its pure-Python and numpy twin, which runs where this module was not built): a token's score
 * for each tag is the sum of five integers (its fixed score; the pair of tags before it; the
 * blocks of the word, the next word and the word's class by the tag before it), the best tag is
 * the first of the highest, and it is sure where it is unique and a tag of the bias row. A token
 * the dictionary gives keeps its tag. A token whose best tag is not sure stops its sentence: the
 * caller asks the plain perceptron and calls again from the next token. Integer sums are exact,
 * so the tags are the loop's own; tests/test_text.py holds the two equal.
 *
 * decode(fixed, blocks, tag_blocks, pair, given, sure, first, lengths, start, prev, prev2,
 *        chosen, stop, tags, befores)
 *   fixed       int64 [token][tag]       the scores of the features that read no tag before
 *   blocks      intp  [token][3]         the word's, the next word's, the class's block
 *   tag_blocks  int32 [block][before][tag]
 *   pair        int64 [before][before][tag]  the tag before and the one two before
 *   given       intp  [token]            the dictionary's tag, or -1
 *   sure        bool  [tag]              a tag of the bias row (one byte each)
 *   first, lengths  intp [sentence]      a sentence's first token and its length
 *   start       intp  [sentence]         where to go on (a sentence with start >= length is done)
 *   prev, prev2 intp  [sentence]         the tags before start (read and written)
 *   chosen      intp  [token]            the tags chosen (written)
 *   stop        intp  [sentence]         written: the token the plain perceptron must decide, or
 *                                        the length where the sentence is done
 * Returns the number of sentences stopped before their end.
 *
 * fixed(ext, at, first, sums, parts, table, pair_keys, pair_values, pair_offsets, pair_columns,
 *       kind_base, base, out)
 *   The scores of the features that read no tag before, DenseScorer._fixed_scores's numpy
 *   arithmetic token by token (integer sums, in any order the same):
 *   ext         intp  [id]               the sentences' word ids, each with two start and two end ids
 *   at          intp  [token]            where each token's id is in ext
 *   first       intp  [sentence]         each sentence's first token (its own row is the first word's)
 *   sums        int32 [word][6][tag]     a word's summed rows in each role
 *   parts       intp  [word][2]          its lower case's and its class's id among the pair parts
 *   table       int32 [row][tag]         the weights
 *   pair_keys   int64 [slot]             the keys in an open-addressing table of 2^k slots (-1: empty),
 *                                        each at the first free slot from its home, pair_home(key)
 *   pair_values intp  [slot]             the row of each key
 *   pair_offsets, pair_columns  intp [kind][2]  where each kind's two parts come from
 *   kind_base   int64 [kind]             a kind's first key, before its parts
 *   base        n                        the number of parts plus one
 *   out         int64 [token][tag]       written
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

/* A pair key's home slot in a table of 2^bits slots: Fibonacci hashing, as DenseScorer builds it. */
#define PAIR_HASH(key, bits) ((uint64_t)(key) * 0x9E3779B97F4A7C15ULL >> (64 - (bits)))

typedef struct {
    Py_buffer view;
    int held;
} Held;

static int take(PyObject *object, Held *held, Py_ssize_t itemsize, int writable, const char *name) {
    if (PyObject_GetBuffer(object, &held->view, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    held->held = 1;
    if (held->view.itemsize != itemsize || held->view.len % itemsize != 0) {
        PyErr_Format(PyExc_ValueError, "%s: items of %zd bytes expected", name, itemsize);
        return -1;
    }
    return 0;
}

#define COUNT(h) ((h).view.len / (h).view.itemsize)

static PyObject *decode(PyObject *self, PyObject *args) {
    PyObject *objects[13];
    Py_ssize_t ntags, nbefore;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOnn", &objects[0], &objects[1], &objects[2], &objects[3],
                          &objects[4], &objects[5], &objects[6], &objects[7], &objects[8], &objects[9],
                          &objects[10], &objects[11], &objects[12], &ntags, &nbefore))
        return NULL;
    static const char *names[13] = {"fixed", "blocks", "tag_blocks", "pair", "given", "sure", "first",
                                    "lengths", "start", "prev", "prev2", "chosen", "stop"};
    static const Py_ssize_t sizes[13] = {8, sizeof(Py_ssize_t), 4, 8, sizeof(Py_ssize_t), 1,
                                         sizeof(Py_ssize_t), sizeof(Py_ssize_t), sizeof(Py_ssize_t),
                                         sizeof(Py_ssize_t), sizeof(Py_ssize_t), sizeof(Py_ssize_t),
                                         sizeof(Py_ssize_t)};
    static const int writable[13] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
    Held held[13] = {{{0}}};
    PyObject *result = NULL;
    for (int k = 0; k < 13; k++)
        if (take(objects[k], &held[k], sizes[k], writable[k], names[k]) < 0)
            goto done;

    const int64_t *fixed = held[0].view.buf;
    const Py_ssize_t *blocks = held[1].view.buf;
    const int32_t *tag_blocks = held[2].view.buf;
    const int64_t *pair = held[3].view.buf;
    const Py_ssize_t *given = held[4].view.buf;
    const uint8_t *sure = held[5].view.buf;
    const Py_ssize_t *first = held[6].view.buf, *lengths = held[7].view.buf, *start = held[8].view.buf;
    Py_ssize_t *prev = held[9].view.buf, *prev2 = held[10].view.buf;
    Py_ssize_t *chosen = held[11].view.buf, *stop = held[12].view.buf;
    Py_ssize_t ntokens = COUNT(held[4]), nsentences = COUNT(held[6]), nblocks = 0;

    /* every index checked once, before any is used */
    if (ntags <= 0 || nbefore < ntags || COUNT(held[5]) != ntags || COUNT(held[0]) != ntokens * ntags
        || COUNT(held[1]) != ntokens * 3 || COUNT(held[3]) != nbefore * nbefore * ntags
        || COUNT(held[2]) % (nbefore * ntags) != 0 || COUNT(held[11]) != ntokens) {
        PyErr_SetString(PyExc_ValueError, "decode: arrays of inconsistent shapes");
        goto done;
    }
    nblocks = COUNT(held[2]) / (nbefore * ntags);
    for (int k = 7; k <= 12; k++)
        if (k != 11 && COUNT(held[k]) != nsentences) {
            PyErr_Format(PyExc_ValueError, "decode: %s: one per sentence expected", names[k]);
            goto done;
        }
    for (Py_ssize_t t = 0; t < ntokens; t++) {
        if (given[t] < -1 || given[t] >= ntags) {
            PyErr_SetString(PyExc_ValueError, "decode: a given tag out of range");
            goto done;
        }
        for (int b = 0; b < 3; b++)
            if (blocks[3 * t + b] < 0 || blocks[3 * t + b] >= nblocks) {
                PyErr_SetString(PyExc_ValueError, "decode: a block out of range");
                goto done;
            }
    }
    for (Py_ssize_t r = 0; r < nsentences; r++)
        if (first[r] < 0 || lengths[r] < 0 || first[r] + lengths[r] > ntokens || start[r] < 0
            || prev[r] < 0 || prev[r] >= nbefore || prev2[r] < 0 || prev2[r] >= nbefore) {
            PyErr_SetString(PyExc_ValueError, "decode: a sentence out of range");
            goto done;
        }

    Py_ssize_t stopped = 0;
    for (Py_ssize_t r = 0; r < nsentences; r++) {
        Py_ssize_t p = prev[r], p2 = prev2[r], i = start[r];
        for (; i < lengths[r]; i++) {
            Py_ssize_t t = first[r] + i;
            const int64_t *f = fixed + t * ntags, *q = pair + (p * nbefore + p2) * ntags;
            const int32_t *own = tag_blocks + (blocks[3 * t] * nbefore + p) * ntags;
            const int32_t *next = tag_blocks + (blocks[3 * t + 1] * nbefore + p) * ntags;
            const int32_t *cls = tag_blocks + (blocks[3 * t + 2] * nbefore + p) * ntags;
            Py_ssize_t best = 0, ties = 0;
            int64_t top = 0;
            for (Py_ssize_t c = 0; c < ntags; c++) {
                int64_t score = f[c] + q[c] + (int64_t)own[c] + (int64_t)next[c] + (int64_t)cls[c];
                if (c == 0 || score > top) {
                    top = score, best = c, ties = 1;
                } else if (score == top) {
                    ties++;
                }
            }
            Py_ssize_t tag;
            if (given[t] >= 0)
                tag = given[t];
            else if (sure[best] && ties == 1)
                tag = best;
            else
                break; /* the plain perceptron decides this one */
            chosen[t] = tag;
            p2 = p, p = tag;
        }
        prev[r] = p, prev2[r] = p2, stop[r] = i > lengths[r] ? lengths[r] : i;
        if (i < lengths[r])
            stopped++;
    }
    result = PyLong_FromSsize_t(stopped);

done:
    for (int k = 0; k < 13; k++)
        if (held[k].held)
            PyBuffer_Release(&held[k].view);
    return result;
}

static const Py_ssize_t ROLE_OFFSETS[5] = {0, -1, -2, 1, 2}; /* fast_tagger._ROLE_OFFSETS */
static const Py_ssize_t ROLES[5] = {0, 2, 3, 4, 5};          /* _ROLES: own, prev, prev2, next, next2 */
#define ROLE_FIRST 1                                         /* _FIRST: the own role of a first word */

static PyObject *fixed(PyObject *self, PyObject *args) {
    PyObject *objects[12];
    Py_ssize_t base;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOnO", &objects[0], &objects[1], &objects[2], &objects[3],
                          &objects[4], &objects[5], &objects[6], &objects[7], &objects[8], &objects[9],
                          &objects[10], &base, &objects[11]))
        return NULL;
    static const char *names[12] = {"ext", "at", "first", "sums", "parts", "table", "pair_keys", "pair_values",
                                    "pair_offsets", "pair_columns", "kind_base", "out"};
    static const Py_ssize_t sizes[12] = {sizeof(Py_ssize_t), sizeof(Py_ssize_t), sizeof(Py_ssize_t), 4,
                                         sizeof(Py_ssize_t), 4, 8, sizeof(Py_ssize_t), sizeof(Py_ssize_t),
                                         sizeof(Py_ssize_t), 8, 8};
    Held held[12] = {{{0}}};
    PyObject *result = NULL;
    uint8_t *firsts = NULL;
    for (int k = 0; k < 12; k++)
        if (take(objects[k], &held[k], sizes[k], k == 11, names[k]) < 0)
            goto done;

    const Py_ssize_t *ext = held[0].view.buf, *at = held[1].view.buf, *first = held[2].view.buf;
    const int32_t *sums = held[3].view.buf;
    const Py_ssize_t *parts = held[4].view.buf;
    const int32_t *table = held[5].view.buf;
    const int64_t *keys = held[6].view.buf;
    const Py_ssize_t *values = held[7].view.buf, *offsets = held[8].view.buf, *columns = held[9].view.buf;
    const int64_t *kind_base = held[10].view.buf;
    int64_t *out = held[11].view.buf;
    Py_ssize_t next = COUNT(held[0]), ntokens = COUNT(held[1]), nsentences = COUNT(held[2]);
    Py_ssize_t nwords = COUNT(held[4]) / 2, nkinds = COUNT(held[10]), nslots = COUNT(held[6]);
    Py_ssize_t ntags = ntokens ? COUNT(held[11]) / ntokens : 0;

    /* every index checked once, before any is used */
    if (ntokens == 0) {
        Py_INCREF(Py_None);
        result = Py_None;
        goto done;
    }
    if (ntags <= 0 || COUNT(held[11]) != ntokens * ntags || COUNT(held[3]) != nwords * 6 * ntags
        || COUNT(held[4]) != nwords * 2 || COUNT(held[5]) % ntags != 0 || nslots < 2 || (nslots & (nslots - 1))
        || COUNT(held[7]) != nslots
        || COUNT(held[8]) != nkinds * 2 || COUNT(held[9]) != nkinds * 2 || base <= 0) {
        PyErr_SetString(PyExc_ValueError, "fixed: arrays of inconsistent shapes");
        goto done;
    }
    Py_ssize_t nrows = COUNT(held[5]) / ntags;
    for (Py_ssize_t i = 0; i < next; i++)
        if (ext[i] < 0 || ext[i] >= nwords) {
            PyErr_SetString(PyExc_ValueError, "fixed: a word id out of range");
            goto done;
        }
    for (Py_ssize_t t = 0; t < ntokens; t++)
        if (at[t] < 2 || at[t] + 2 >= next) {
            PyErr_SetString(PyExc_ValueError, "fixed: a token's place out of range");
            goto done;
        }
    for (Py_ssize_t k = 0; k < 2 * nkinds; k++)
        if (offsets[k] < -2 || offsets[k] > 2 || columns[k] < 0 || columns[k] > 1) {
            PyErr_SetString(PyExc_ValueError, "fixed: a pair part out of range");
            goto done;
        }
    int bits = 0;
    while (((Py_ssize_t)1 << bits) < nslots)
        bits++;
    const uint64_t mask = (uint64_t)nslots - 1;
    firsts = PyMem_Calloc(ntokens, 1);
    if (firsts == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t r = 0; r < nsentences; r++) {
        if (first[r] < 0 || first[r] >= ntokens) {
            PyErr_SetString(PyExc_ValueError, "fixed: a sentence out of range");
            goto done;
        }
        firsts[first[r]] = 1;
    }

    for (Py_ssize_t t = 0; t < ntokens; t++) {
        int64_t *score = out + t * ntags;
        for (Py_ssize_t c = 0; c < ntags; c++)
            score[c] = 0;
        for (int j = 0; j < 5; j++) {
            Py_ssize_t role = (j == 0 && firsts[t]) ? ROLE_FIRST : ROLES[j];
            const int32_t *row = sums + (ext[at[t] + ROLE_OFFSETS[j]] * 6 + role) * ntags;
            for (Py_ssize_t c = 0; c < ntags; c++)
                score[c] += row[c];
        }
        for (Py_ssize_t k = 0; k < nkinds; k++) {
            Py_ssize_t left = parts[ext[at[t] + offsets[2 * k]] * 2 + columns[2 * k]];
            Py_ssize_t right = parts[ext[at[t] + offsets[2 * k + 1]] * 2 + columns[2 * k + 1]];
            int64_t key = (kind_base[k] + left) * base + right;
            /* from its home slot to the key or an empty slot (-1: no weights, row 0); a table
             * with no empty slot is read at most once round */
            uint64_t slot = PAIR_HASH(key, bits);
            for (Py_ssize_t probes = 0; probes < nslots && keys[slot] >= 0; probes++) {
                if (keys[slot] == key) {
                    if (values[slot] < 0 || values[slot] >= nrows) {
                        PyErr_SetString(PyExc_ValueError, "fixed: a pair row out of range");
                        goto done;
                    }
                    const int32_t *row = table + values[slot] * ntags;
                    for (Py_ssize_t c = 0; c < ntags; c++)
                        score[c] += row[c];
                    break;
                }
                slot = (slot + 1) & mask;
            }
        }
    }
    Py_INCREF(Py_None);
    result = Py_None;

done:
    PyMem_Free(firsts);
    for (int k = 0; k < 12; k++)
        if (held[k].held)
            PyBuffer_Release(&held[k].view);
    return result;
}

static PyMethodDef methods[] = {
    {"decode", decode, METH_VARARGS, "The greedy tags of a batch of sentences (see the module's source)."},
    {"fixed", fixed, METH_VARARGS, "The fixed scores of a batch's tokens (see the module's source)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_greedy", NULL, -1, methods};

PyMODINIT_FUNC PyInit__greedy(void) { return PyModule_Create(&module); }
