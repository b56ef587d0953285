/* Speed, in one place: the English tagger's greedy choice, token by token, compiled.
 *
 * The same arithmetic as the position loop of wikisilver.text.fast_tagger.DenseScorer.tag_many
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
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

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

static PyMethodDef methods[] = {
    {"decode", decode, METH_VARARGS, "The greedy tags of a batch of sentences (see the module's source)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_greedy", NULL, -1, methods};

PyMODINIT_FUNC PyInit__greedy(void) { return PyModule_Create(&module); }
