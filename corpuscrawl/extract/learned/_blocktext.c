/* C accelerator of corpuscrawl.extract.learned.block_features: the per-block string statistics.
 *
 * `text_columns(texts, stopwords, out)` fills out (len(texts) x 8 float64, row-major) with,
 * per block text, what block_features._text_columns computes in Python: words starting
 * upper-case, digits, sentence ends, ends with punctuation, commas, stopwords, copyright
 * mark, separators.  Every test is the one the Python code makes, character by character
 * (str.split's whitespace, str.isupper / str.isdigit of one character, the regex
 * [.!?](?:\s|$) whose \s is str.isspace, str.lower for the stopword and "copyright" tests),
 * so the numbers are identical; tests/test_block_text.py compares the two.
 *
 * `title_tokens(texts, wanted, out)` gives title_features.title_matrix what it reads of each
 * block: its \w+ tokens of str.lower() (\w: str.isalnum() or "_"), how many are title words,
 * and how many distinct title words it holds.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define N_COLUMNS 8

static int is_end_punct(Py_UCS4 c)
{
    return c == '.' || c == '!' || c == '?' || c == '"' || c == '\'' || c == 0x201D || c == ')';
}

static int is_separator(Py_UCS4 c)
{
    return c == '|' || c == 0xBB || c == 0x203A || c == 0xB7 || c == 0x2022;
}

static int row(PyObject *text, PyObject *stopwords, int use_stopwords, PyObject *copyright,
               double *out)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    long upper = 0, digits = 0, sentences = 0, commas = 0, seps = 0;
    int in_token = 0, copyright_sign = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (Py_UNICODE_ISSPACE(c)) {
            in_token = 0;
            continue;
        }
        if (!in_token && Py_UNICODE_ISUPPER(c))
            upper++;
        in_token = 1;
        if (Py_UNICODE_ISDIGIT(c))
            digits++;
        if ((c == '.' || c == '!' || c == '?') &&
            (i + 1 == n || Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i + 1))))
            sentences++;
        else if (c == ',')
            commas++;
        else if (c == 0xA9)
            copyright_sign = 1;
        if (is_separator(c))
            seps++;
    }
    long stops = 0;
    int copyright_word = 0;
    if (use_stopwords || !copyright_sign) {
        PyObject *lower = PyObject_CallMethod(text, "lower", NULL);
        if (lower == NULL)
            return -1;
        if (!copyright_sign) {
            Py_ssize_t at = PyUnicode_Find(lower, copyright, 0, PyUnicode_GET_LENGTH(lower), 1);
            if (at == -2) {
                Py_DECREF(lower);
                return -1;
            }
            copyright_word = at >= 0;
        }
        if (use_stopwords) {
            PyObject *tokens = PyUnicode_Split(lower, NULL, -1);
            if (tokens == NULL) {
                Py_DECREF(lower);
                return -1;
            }
            for (Py_ssize_t j = 0; j < PyList_GET_SIZE(tokens); j++) {
                int found = PySet_Contains(stopwords, PyList_GET_ITEM(tokens, j));
                if (found < 0) {
                    Py_DECREF(tokens);
                    Py_DECREF(lower);
                    return -1;
                }
                stops += found;
            }
            Py_DECREF(tokens);
        }
        Py_DECREF(lower);
    }
    out[0] = (double)upper;
    out[1] = (double)digits;
    out[2] = (double)sentences;
    out[3] = n > 0 && is_end_punct(PyUnicode_READ(kind, data, n - 1)) ? 1.0 : 0.0;
    out[4] = (double)commas;
    out[5] = (double)stops;
    out[6] = copyright_sign || copyright_word ? 1.0 : 0.0;
    out[7] = (double)(seps < 5 ? seps : 5) / 5;
    return 0;
}

static PyObject *text_columns(PyObject *self, PyObject *args)
{
    PyObject *texts, *stopwords;
    Py_buffer out;
    if (!PyArg_ParseTuple(args, "O!Ow*:text_columns", &PyList_Type, &texts, &stopwords, &out))
        return NULL;
    PyObject *result = NULL, *copyright = NULL;
    Py_ssize_t n = PyList_GET_SIZE(texts);
    if (out.len != (Py_ssize_t)(n * N_COLUMNS * sizeof(double))) {
        PyErr_Format(PyExc_ValueError, "out: %zd bytes, expected %zd", out.len,
                     (Py_ssize_t)(n * N_COLUMNS * sizeof(double)));
        goto done;
    }
    if (!PyAnySet_Check(stopwords)) {
        PyErr_SetString(PyExc_TypeError, "stopwords must be a set or frozenset");
        goto done;
    }
    copyright = PyUnicode_FromString("copyright");
    if (copyright == NULL)
        goto done;
    int use_stopwords = PySet_GET_SIZE(stopwords) > 0;
    double *rows = (double *)out.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *text = PyList_GET_ITEM(texts, i);
        if (!PyUnicode_Check(text)) {
            PyErr_Format(PyExc_TypeError, "texts[%zd] is not a str", i);
            goto done;
        }
        if (row(text, stopwords, use_stopwords, copyright, rows + i * N_COLUMNS) < 0)
            goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    Py_XDECREF(copyright);
    PyBuffer_Release(&out);
    return result;
}

/* str.isalnum() or "_": what the regex \w matches in a str pattern. */
static int is_word_char(Py_UCS4 c)
{
    return Py_UNICODE_ISALNUM(c) || c == '_';
}

static PyObject *title_tokens(PyObject *self, PyObject *args)
{
    PyObject *texts, *wanted;
    Py_buffer out;
    if (!PyArg_ParseTuple(args, "O!Ow*:title_tokens", &PyList_Type, &texts, &wanted, &out))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = PyList_GET_SIZE(texts);
    if (out.len != (Py_ssize_t)(n * 3 * sizeof(double))) {
        PyErr_Format(PyExc_ValueError, "out: %zd bytes, expected %zd", out.len,
                     (Py_ssize_t)(n * 3 * sizeof(double)));
        goto done;
    }
    if (!PyAnySet_Check(wanted)) {
        PyErr_SetString(PyExc_TypeError, "wanted must be a set or frozenset");
        goto done;
    }
    /* Lengths of the wanted words (a token of another length cannot be one of them). */
    uint64_t lengths = 0;
    int long_words = 0;
    {
        PyObject *it = PyObject_GetIter(wanted), *word;
        if (it == NULL)
            goto done;
        while ((word = PyIter_Next(it)) != NULL) {
            if (PyUnicode_Check(word)) {
                Py_ssize_t len = PyUnicode_GET_LENGTH(word);
                if (len < 64)
                    lengths |= (uint64_t)1 << len;
                else
                    long_words = 1;
            }
            Py_DECREF(word);
        }
        Py_DECREF(it);
        if (PyErr_Occurred())
            goto done;
    }
    double *rows = (double *)out.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *text = PyList_GET_ITEM(texts, i);
        if (!PyUnicode_Check(text)) {
            PyErr_Format(PyExc_TypeError, "texts[%zd] is not a str", i);
            goto done;
        }
        PyObject *lower = PyObject_CallMethod(text, "lower", NULL);
        if (lower == NULL)
            goto done;
        Py_ssize_t len = PyUnicode_GET_LENGTH(lower);
        int kind = PyUnicode_KIND(lower);
        const void *data = PyUnicode_DATA(lower);
        PyObject *found = NULL;
        long tokens = 0, inside = 0;
        Py_ssize_t start = -1;
        int failed = 0;
        for (Py_ssize_t j = 0; j <= len && !failed; j++) {
            int word = j < len && is_word_char(PyUnicode_READ(kind, data, j));
            if (word) {
                if (start < 0)
                    start = j;
                continue;
            }
            if (start < 0)
                continue;
            Py_ssize_t tlen = j - start;
            tokens++;
            if (tlen < 64 ? (int)((lengths >> tlen) & 1) : long_words) {
                PyObject *token = PyUnicode_Substring(lower, start, j);
                int hit = token ? PySet_Contains(wanted, token) : -1;
                if (hit > 0) {
                    inside++;
                    if (found == NULL && (found = PySet_New(NULL)) == NULL)
                        hit = -1;
                    else if (PySet_Add(found, token) < 0)
                        hit = -1;
                }
                Py_XDECREF(token);
                if (hit < 0)
                    failed = 1;
            }
            start = -1;
        }
        Py_DECREF(lower);
        rows[3 * i] = found ? (double)PySet_GET_SIZE(found) : 0.0;
        rows[3 * i + 1] = (double)inside;
        rows[3 * i + 2] = (double)tokens;
        Py_XDECREF(found);
        if (failed)
            goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&out);
    return result;
}

/* block_features.tree_distances: for each path (node ids, container first, root last), the
 * steps to the first of its nodes on head's path plus that node's steps up from head's
 * container; len(path) + len(head) when they share none. */
static PyObject *tree_distances(PyObject *self, PyObject *args)
{
    PyObject *paths, *head;
    if (!PyArg_ParseTuple(args, "O!O!:tree_distances", &PyList_Type, &paths, &PyTuple_Type,
                          &head))
        return NULL;
    Py_ssize_t nh = PyTuple_GET_SIZE(head);
    long long *ids = PyMem_Malloc((nh ? nh : 1) * sizeof(long long));
    if (ids == NULL)
        return PyErr_NoMemory();
    PyObject *out = NULL;
    for (Py_ssize_t k = 0; k < nh; k++) {
        ids[k] = PyLong_AsLongLong(PyTuple_GET_ITEM(head, k));
        if (ids[k] == -1 && PyErr_Occurred())
            goto done;
    }
    Py_ssize_t n = PyList_GET_SIZE(paths);
    out = PyList_New(n);
    if (out == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *path = PyList_GET_ITEM(paths, i);
        if (!PyTuple_Check(path)) {
            PyErr_Format(PyExc_TypeError, "paths[%zd] is not a tuple", i);
            Py_CLEAR(out);
            goto done;
        }
        Py_ssize_t np_ = PyTuple_GET_SIZE(path);
        Py_ssize_t distance = np_ + nh;
        for (Py_ssize_t k = 0; k < np_ && distance == np_ + nh; k++) {
            long long node = PyLong_AsLongLong(PyTuple_GET_ITEM(path, k));
            if (node == -1 && PyErr_Occurred()) {
                Py_CLEAR(out);
                goto done;
            }
            /* the last match, as dict {node: step} over head's path keeps it */
            for (Py_ssize_t h = nh - 1; h >= 0; h--) {
                if (ids[h] == node) {
                    distance = k + h;
                    break;
                }
            }
        }
        PyObject *value = PyLong_FromSsize_t(distance);
        if (value == NULL) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, i, value);
    }
done:
    PyMem_Free(ids);
    return out;
}

static PyMethodDef methods[] = {
    {"tree_distances", tree_distances, METH_VARARGS,
     "tree_distances(paths, head) -> list[int]: block_features.tree_distances over the blocks' "
     "paths and the head block's path."},
    {"title_tokens", title_tokens, METH_VARARGS,
     "title_tokens(texts, wanted, out): per text, the distinct words of wanted among its "
     "\\w+ tokens (lower-cased), its tokens in wanted, its tokens, into out (len(texts) x 3)."},
    {"text_columns", text_columns, METH_VARARGS,
     "text_columns(texts, stopwords, out): block_features._text_columns into out "
     "(len(texts) x 8 float64)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_blocktext",
    "C accelerator of corpuscrawl.extract.learned.block_features (per-block string statistics).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__blocktext(void)
{
    return PyModule_Create(&module);
}
