/* Speed, in one place: the token lines of one sentence of our TSV, in C, the twin of the lines
 * wikisilver.corpus.write.tsv_block joins in Python where this module was not built.
 *
 * token_lines(columns, offsets) -> str
 *   ``columns``: a tuple of sequences of str (token, lemma, POS, DBpedia tag, CoNLL tag);
 *   ``offsets``: a sequence of (start, end) tuples of int, each token's, or empty (unknown).
 *   One line a token, "\n" between lines and none after the last: the token's cells joined by
 *   "\t" (tab, line feed and carriage return in a cell written as spaces, an empty cell as "_"),
 *   then, with offsets, its start and end in decimal; as many lines as the shortest column has
 *   cells (what zip gives). tests/test_write_parts.py holds the two equal.
 *
 * A corpus writes one such line a token: the Python join made a list of cells and a string a line
 * for each; this writes the sentence's lines into one string, measured first.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static int is_break(Py_UCS4 c) { return c == '\t' || c == '\n' || c == '\r'; }

/* The decimal digits of n (sign included) at the end of buffer[32]; their first index returned. */
static int decimal(Py_ssize_t n, char *buffer) {
    int at = 32;
    size_t magnitude = n < 0 ? (size_t)0 - (size_t)n : (size_t)n;
    do {
        buffer[--at] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    if (n < 0) buffer[--at] = '-';
    return at;
}

static PyObject *token_lines(PyObject *self, PyObject *args) {
    PyObject *columns, *offsets_in;
    if (!PyArg_ParseTuple(args, "O!O", &PyTuple_Type, &columns, &offsets_in)) return NULL;
    Py_ssize_t width = PyTuple_GET_SIZE(columns);
    PyObject *fast[16];
    if (width < 1 || width > 16) {
        PyErr_SetString(PyExc_ValueError, "between 1 and 16 columns");
        return NULL;
    }
    PyObject *pairs = PySequence_Fast(offsets_in, "offsets must be a sequence");
    Py_ssize_t made = 0;
    PyObject *result = NULL;
    if (pairs == NULL) goto done;
    for (; made < width; made++) {
        fast[made] = PySequence_Fast(PyTuple_GET_ITEM(columns, made), "a column must be a sequence");
        if (fast[made] == NULL) goto done;
    }
    int offsets = PySequence_Fast_GET_SIZE(pairs) > 0;
    Py_ssize_t lines = PY_SSIZE_T_MAX;
    for (Py_ssize_t c = 0; c < width; c++) lines = Py_MIN(lines, PySequence_Fast_GET_SIZE(fast[c]));
    if (offsets) lines = Py_MIN(lines, PySequence_Fast_GET_SIZE(pairs));
    /* first pass: the length and the widest character */
    Py_ssize_t total = lines > 0 ? lines - 1 : 0;
    Py_UCS4 widest = 127;
    char digits[32];
    for (Py_ssize_t i = 0; i < lines; i++) {
        total += width - 1 + (offsets ? 2 : 0);
        for (Py_ssize_t c = 0; c < width; c++) {
            PyObject *cell = PySequence_Fast_ITEMS(fast[c])[i];
            if (!PyUnicode_Check(cell)) {
                PyErr_Format(PyExc_TypeError, "a TSV cell must be str, not %.80s", Py_TYPE(cell)->tp_name);
                goto done;
            }
            Py_ssize_t length = PyUnicode_GET_LENGTH(cell);
            total += length ? length : 1;
            widest = Py_MAX(widest, PyUnicode_MAX_CHAR_VALUE(cell));
        }
        if (offsets) {
            PyObject *pair = PySequence_Fast_ITEMS(pairs)[i];
            if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
                PyErr_SetString(PyExc_TypeError, "an offset must be a (start, end) tuple");
                goto done;
            }
            for (int k = 0; k < 2; k++) {
                Py_ssize_t n = PyLong_AsSsize_t(PyTuple_GET_ITEM(pair, k));
                if (n == -1 && PyErr_Occurred()) goto done;
                total += 32 - decimal(n, digits);
            }
        }
    }
    /* second pass: the characters (cells as canonical strings: the widest kind any of them has is
     * the kind of the result, and the spaces written for breaks are narrower than all) */
    result = PyUnicode_New(total, widest);
    if (result == NULL) goto done;
    int kind = PyUnicode_KIND(result);
    void *data = PyUnicode_DATA(result);
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i < lines; i++) {
        if (i) PyUnicode_WRITE(kind, data, at++, '\n');
        for (Py_ssize_t c = 0; c < width; c++) {
            if (c) PyUnicode_WRITE(kind, data, at++, '\t');
            PyObject *cell = PySequence_Fast_ITEMS(fast[c])[i];
            Py_ssize_t length = PyUnicode_GET_LENGTH(cell);
            if (!length) {
                PyUnicode_WRITE(kind, data, at++, '_');
                continue;
            }
            int cell_kind = PyUnicode_KIND(cell);
            const void *cell_data = PyUnicode_DATA(cell);
            if (kind == PyUnicode_1BYTE_KIND) { /* then every cell is one byte a character too */
                const Py_UCS1 *from = (const Py_UCS1 *)cell_data;
                Py_UCS1 *to = (Py_UCS1 *)data + at;
                for (Py_ssize_t j = 0; j < length; j++) to[j] = is_break(from[j]) ? ' ' : from[j];
                at += length;
                continue;
            }
            for (Py_ssize_t j = 0; j < length; j++) {
                Py_UCS4 ch = PyUnicode_READ(cell_kind, cell_data, j);
                PyUnicode_WRITE(kind, data, at++, is_break(ch) ? ' ' : ch);
            }
        }
        if (offsets) {
            for (int k = 0; k < 2; k++) {
                int first = decimal(PyLong_AsSsize_t(PyTuple_GET_ITEM(PySequence_Fast_ITEMS(pairs)[i], k)), digits);
                PyUnicode_WRITE(kind, data, at++, '\t');
                for (int j = first; j < 32; j++) PyUnicode_WRITE(kind, data, at++, (Py_UCS4)digits[j]);
            }
        }
    }
    if (at != total) {
        Py_CLEAR(result);
        PyErr_SetString(PyExc_RuntimeError, "token_lines: length mismatch");
    }
done:
    for (Py_ssize_t c = 0; c < made; c++) Py_DECREF(fast[c]);
    Py_XDECREF(pairs);
    return result;
}

static PyMethodDef methods[] = {
    {"token_lines", token_lines, METH_VARARGS, "The token lines of a sentence of our TSV (see the module's source)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_tsv", NULL, -1, methods};

PyMODINIT_FUNC PyInit__tsv(void) { return PyModule_Create(&module); }
