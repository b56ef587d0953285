/* Speed, in one place: the token lines of our TSV, in C, the twin of the lines
 * wikisilver.corpus.write._joined_lines joins in Python where this module was not built.
 *
 * token_lines(columns, offsets, offset_lengths) -> list of str
 *   ``columns``: a tuple of (cells, separator, lengths) tuples, one a column (token, lemma, POS,
 *   DBpedia tag, CoNLL tag; wikisilver.corpus.columns.Joined): the cells of every sentence in
 *   order, joined by ``separator``, one character that no cell holds, and each sentence's number
 *   of cells in it (a sequence of int);
 *   ``offsets``: a sequence of int: the start and end of each token of the sentences with offsets;
 *   ``offset_lengths``: a sequence of int: each sentence's number of (start, end) pairs (0: unknown).
 *   One string a sentence: a line a token, "\n" between lines and none after the last: the token's
 *   cells joined by "\t" (tab, line feed and carriage return in a cell written as spaces, an empty
 *   cell as "_"), then, where its offsets are known, its start and end in decimal; as many lines as
 *   the shortest of its columns (and of its offsets, where known) has cells (what zip gives).
 *   tests/test_write_parts.py holds the two equal.
 *
 * A corpus writes one such line a token: the Python join made a list of cells and a string a line
 * for each; this reads the joined columns as they were packed and writes each sentence's lines
 * into one string, with no string a cell (docs/performance.md).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define MAX_COLUMNS 16

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

typedef struct {
    PyObject *cells;
    int kind;
    const void *data;
    Py_ssize_t length, at; /* the string's length; where its next cell starts */
    Py_UCS4 separator;
    PyObject *lengths; /* a fast sequence */
} Column;

/* The next cell of a column: its [*start, *end), the widest character it holds folded into
 * *widest; -1 (ValueError) where the column has no cell left. */
static int next_cell(Column *column, Py_ssize_t *start, Py_ssize_t *end, Py_UCS4 *widest) {
    if (column->at > column->length) {
        PyErr_SetString(PyExc_ValueError, "a column holds fewer cells than its lengths say");
        return -1;
    }
    Py_ssize_t j = column->at;
    Py_UCS4 wide = *widest;
    for (; j < column->length; j++) {
        Py_UCS4 c = PyUnicode_READ(column->kind, column->data, j);
        if (c == column->separator) break;
        if (c > wide) wide = c;
    }
    *start = column->at;
    *end = j;
    *widest = wide;
    column->at = j + 1;
    return 0;
}

static Py_ssize_t item(PyObject *fast, Py_ssize_t i) {
    return PyLong_AsSsize_t(PySequence_Fast_ITEMS(fast)[i]);
}

static PyObject *token_lines(PyObject *self, PyObject *args) {
    PyObject *columns_in, *offsets_in, *offset_lengths_in;
    if (!PyArg_ParseTuple(args, "O!OO", &PyTuple_Type, &columns_in, &offsets_in, &offset_lengths_in))
        return NULL;
    Py_ssize_t width = PyTuple_GET_SIZE(columns_in);
    if (width < 1 || width > MAX_COLUMNS) {
        PyErr_SetString(PyExc_ValueError, "between 1 and 16 columns");
        return NULL;
    }
    Column columns[MAX_COLUMNS];
    Py_ssize_t made = 0;
    PyObject *offsets = NULL, *offset_lengths = NULL, *result = NULL;
    Py_ssize_t *bounds = NULL; /* the [start, end) of each cell of a sentence's lines */
    Py_ssize_t capacity = 0;
    for (; made < width; made++) {
        PyObject *pair = PyTuple_GET_ITEM(columns_in, made);
        PyObject *cells = NULL, *separator = NULL;
        if (PyTuple_Check(pair) && PyTuple_GET_SIZE(pair) == 3) {
            cells = PyTuple_GET_ITEM(pair, 0);
            separator = PyTuple_GET_ITEM(pair, 1);
        }
        if (cells == NULL || !PyUnicode_Check(cells) || !PyUnicode_Check(separator) ||
            PyUnicode_GET_LENGTH(separator) != 1) {
            PyErr_SetString(PyExc_TypeError, "a column must be a (cells, separator, lengths) tuple");
            goto done;
        }
        Column *column = &columns[made];
        column->lengths = PySequence_Fast(PyTuple_GET_ITEM(pair, 2), "a column's lengths must be a sequence");
        if (column->lengths == NULL) goto done;
        column->cells = cells;
        column->kind = PyUnicode_KIND(cells);
        column->data = PyUnicode_DATA(cells);
        column->length = PyUnicode_GET_LENGTH(cells);
        column->at = 0;
        column->separator = PyUnicode_READ_CHAR(separator, 0);
    }
    offsets = PySequence_Fast(offsets_in, "offsets must be a sequence");
    offset_lengths = offsets == NULL ? NULL : PySequence_Fast(offset_lengths_in, "offset lengths must be a sequence");
    if (offset_lengths == NULL) goto done;
    Py_ssize_t sentences = PySequence_Fast_GET_SIZE(offset_lengths);
    Py_ssize_t offset_at = 0, offset_count = PySequence_Fast_GET_SIZE(offsets);
    for (Py_ssize_t c = 0; c < width; c++) {
        if (PySequence_Fast_GET_SIZE(columns[c].lengths) != sentences) {
            PyErr_SetString(PyExc_ValueError, "each column's lengths must have a number a sentence");
            goto done;
        }
    }
    result = PyList_New(sentences);
    if (result == NULL) goto done;
    char digits[32];
    for (Py_ssize_t i = 0; i < sentences; i++) {
        Py_ssize_t pairs = item(offset_lengths, i);
        if (pairs == -1 && PyErr_Occurred()) goto fail;
        if (pairs < 0 || offset_at + 2 * pairs > offset_count) {
            PyErr_SetString(PyExc_ValueError, "fewer offsets than their lengths say");
            goto fail;
        }
        Py_ssize_t lines = pairs > 0 ? pairs : PY_SSIZE_T_MAX;
        for (Py_ssize_t c = 0; c < width; c++) {
            Py_ssize_t n = item(columns[c].lengths, i);
            if (n == -1 && PyErr_Occurred()) goto fail;
            if (n < 0) {
                PyErr_SetString(PyExc_ValueError, "a negative length");
                goto fail;
            }
            lines = Py_MIN(lines, n);
        }
        if (lines * width * 2 > capacity) {
            capacity = lines * width * 2;
            Py_ssize_t *grown = PyMem_Realloc(bounds, capacity * sizeof(Py_ssize_t));
            if (grown == NULL) {
                PyErr_NoMemory();
                goto fail;
            }
            bounds = grown;
        }
        /* first pass: each cell's bounds, the length and the widest character */
        Py_ssize_t total = lines > 0 ? lines - 1 : 0;
        Py_UCS4 widest = 127;
        for (Py_ssize_t j = 0; j < lines; j++) {
            total += width - 1 + (pairs ? 2 : 0);
            for (Py_ssize_t c = 0; c < width; c++) {
                Py_ssize_t *cell = bounds + 2 * (j * width + c);
                if (next_cell(&columns[c], cell, cell + 1, &widest) < 0) goto fail;
                total += cell[1] > cell[0] ? cell[1] - cell[0] : 1;
            }
            if (pairs) {
                for (int k = 0; k < 2; k++) {
                    Py_ssize_t n = item(offsets, offset_at + 2 * j + k);
                    if (n == -1 && PyErr_Occurred()) goto fail;
                    total += 32 - decimal(n, digits);
                }
            }
        }
        /* the cells past the shortest column's, skipped */
        for (Py_ssize_t c = 0; c < width; c++) {
            Py_UCS4 unused = 0;
            Py_ssize_t start, end;
            for (Py_ssize_t j = lines, n = item(columns[c].lengths, i); j < n; j++)
                if (next_cell(&columns[c], &start, &end, &unused) < 0) goto fail;
        }
        /* second pass: the characters (the widest any cell has is the kind of the string, and the
         * spaces written for breaks are narrower than all) */
        PyObject *text = PyUnicode_New(total, widest);
        if (text == NULL) goto fail;
        int kind = PyUnicode_KIND(text);
        void *data = PyUnicode_DATA(text);
        Py_ssize_t at = 0;
        for (Py_ssize_t j = 0; j < lines; j++) {
            if (j) PyUnicode_WRITE(kind, data, at++, '\n');
            for (Py_ssize_t c = 0; c < width; c++) {
                if (c) PyUnicode_WRITE(kind, data, at++, '\t');
                Py_ssize_t *cell = bounds + 2 * (j * width + c);
                if (cell[1] == cell[0]) {
                    PyUnicode_WRITE(kind, data, at++, '_');
                    continue;
                }
                int cell_kind = columns[c].kind;
                const void *cell_data = columns[c].data;
                if (kind == PyUnicode_1BYTE_KIND && cell_kind == PyUnicode_1BYTE_KIND) {
                    const Py_UCS1 *from = (const Py_UCS1 *)cell_data + cell[0];
                    Py_UCS1 *to = (Py_UCS1 *)data + at;
                    for (Py_ssize_t k = 0; k < cell[1] - cell[0]; k++) to[k] = is_break(from[k]) ? ' ' : from[k];
                    at += cell[1] - cell[0];
                    continue;
                }
                for (Py_ssize_t k = cell[0]; k < cell[1]; k++) {
                    Py_UCS4 ch = PyUnicode_READ(cell_kind, cell_data, k);
                    PyUnicode_WRITE(kind, data, at++, is_break(ch) ? ' ' : ch);
                }
            }
            if (pairs) {
                for (int k = 0; k < 2; k++) {
                    int first = decimal(item(offsets, offset_at + 2 * j + k), digits);
                    PyUnicode_WRITE(kind, data, at++, '\t');
                    for (int d = first; d < 32; d++) PyUnicode_WRITE(kind, data, at++, (Py_UCS4)digits[d]);
                }
            }
        }
        if (at != total) {
            Py_DECREF(text);
            PyErr_SetString(PyExc_RuntimeError, "token_lines: length mismatch");
            goto fail;
        }
        PyList_SET_ITEM(result, i, text);
        offset_at += 2 * pairs;
    }
    goto done;
fail:
    Py_CLEAR(result);
done:
    for (Py_ssize_t c = 0; c < made; c++) Py_XDECREF(columns[c].lengths);
    Py_XDECREF(offsets);
    Py_XDECREF(offset_lengths);
    PyMem_Free(bounds);
    return result;
}

static PyMethodDef methods[] = {
    {"token_lines", token_lines, METH_VARARGS, "The token lines of sentences of our TSV (see the module's source)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_tsv", NULL, -1, methods};

PyMODINIT_FUNC PyInit__tsv(void) { return PyModule_Create(&module); }
