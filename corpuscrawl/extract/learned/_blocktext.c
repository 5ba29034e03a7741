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
#include <string.h>

#define N_COLUMNS 8

static int is_end_punct(Py_UCS4 c)
{
    return c == '.' || c == '!' || c == '?' || c == '"' || c == '\'' || c == 0x201D || c == ')';
}

/* str.isspace() of an ASCII character: \t \n \v \f \r, the separators 0x1c-0x1f, space. */
static int is_ascii_space(Py_UCS4 c)
{
    return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
}

static int is_separator(Py_UCS4 c)
{
    return c == '|' || c == 0xBB || c == 0x203A || c == 0xB7 || c == 0x2022;
}

/* ---- A set of words as a C hash table: membership of a token without making a str of it.
 * Each word is kept as its code points; a token is looked up by its (lower-cased) code points,
 * which is what `token in words` decides for str tokens and a set of str (other members
 * never equal a str).  Built from a frozenset once and kept while the same frozenset is
 * passed again (the stoplists are cached frozensets); a set is read each call. */
typedef struct {
    PyObject *source;     /* the frozenset the table was built from (strong reference) */
    Py_ssize_t n_words, n_slots, max_len;
    int32_t *slots;       /* word index or -1 */
    uint32_t *hashes;
    Py_ssize_t *starts;
    int32_t *lens;
    Py_UCS4 *chars;
} WordTable;

static uint32_t hash_points(const Py_UCS4 *c, Py_ssize_t n)
{
    uint32_t h = 2166136261u;
    for (Py_ssize_t i = 0; i < n; i++) {
        h ^= (uint32_t)c[i];
        h *= 16777619u;
    }
    return h;
}

static void table_clear(WordTable *t)
{
    Py_CLEAR(t->source);
    PyMem_Free(t->slots);
    PyMem_Free(t->hashes);
    PyMem_Free(t->starts);
    PyMem_Free(t->lens);
    PyMem_Free(t->chars);
    memset(t, 0, sizeof *t);
}

static int table_build(WordTable *t, PyObject *words)
{
    memset(t, 0, sizeof *t);
    Py_ssize_t n = PySet_GET_SIZE(words), total = 0;
    PyObject *it = PyObject_GetIter(words), *w;
    if (it == NULL)
        return -1;
    while ((w = PyIter_Next(it)) != NULL) {
        if (PyUnicode_Check(w))
            total += PyUnicode_GET_LENGTH(w);
        Py_DECREF(w);
    }
    Py_DECREF(it);
    if (PyErr_Occurred())
        return -1;
    t->n_slots = 8;
    while (t->n_slots < 2 * n + 2)
        t->n_slots *= 2;
    t->slots = PyMem_Malloc(t->n_slots * sizeof(int32_t));
    t->hashes = PyMem_Malloc((n + 1) * sizeof(uint32_t));
    t->starts = PyMem_Malloc((n + 1) * sizeof(Py_ssize_t));
    t->lens = PyMem_Malloc((n + 1) * sizeof(int32_t));
    t->chars = PyMem_Malloc((total + 1) * sizeof(Py_UCS4));
    if (!t->slots || !t->hashes || !t->starts || !t->lens || !t->chars) {
        table_clear(t);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < t->n_slots; i++)
        t->slots[i] = -1;
    Py_ssize_t at = 0;
    it = PyObject_GetIter(words);
    if (it == NULL) {
        table_clear(t);
        return -1;
    }
    while ((w = PyIter_Next(it)) != NULL) {
        if (PyUnicode_Check(w) && t->n_words < n) {
            Py_ssize_t len = PyUnicode_GET_LENGTH(w);
            if (len > INT32_MAX || at + len > total) {
                Py_DECREF(w);
                break;  /* the set changed while read: caught below */
            }
            int kind = PyUnicode_KIND(w);
            const void *data = PyUnicode_DATA(w);
            for (Py_ssize_t j = 0; j < len; j++)
                t->chars[at + j] = PyUnicode_READ(kind, data, j);
            Py_ssize_t k = t->n_words++;
            t->starts[k] = at;
            t->lens[k] = (int32_t)len;
            t->hashes[k] = hash_points(t->chars + at, len);
            if (len > t->max_len)
                t->max_len = len;
            Py_ssize_t slot = t->hashes[k] & (t->n_slots - 1);
            while (t->slots[slot] != -1)
                slot = (slot + 1) & (t->n_slots - 1);
            t->slots[slot] = (int32_t)k;
            at += len;
        }
        Py_DECREF(w);
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) {
        table_clear(t);
        return -1;
    }
    return 0;
}

/* The index of the word with these code points, or -1. */
static Py_ssize_t table_find(const WordTable *t, const Py_UCS4 *c, Py_ssize_t n)
{
    if (n > t->max_len || t->n_words == 0)
        return -1;
    uint32_t h = hash_points(c, n);
    for (Py_ssize_t slot = h & (t->n_slots - 1); t->slots[slot] != -1;
         slot = (slot + 1) & (t->n_slots - 1)) {
        int32_t k = t->slots[slot];
        if (t->hashes[k] == h && t->lens[k] == n &&
            memcmp(t->chars + t->starts[k], c, n * sizeof(Py_UCS4)) == 0)
            return k;
    }
    return -1;
}

/* Tokens of a text lower-cased, one at a time, as code points: an ASCII text is lower-cased
 * here (str.lower() of ASCII is A-Z -> a-z), any other through str.lower() itself. */
typedef struct {
    PyObject *lower;      /* str.lower() of a non-ASCII text (new reference), else NULL */
    int kind;
    const void *data;
    Py_ssize_t n;
    int ascii;
} Lowered;

static int lowered_open(Lowered *l, PyObject *text)
{
    l->lower = NULL;
    l->ascii = PyUnicode_IS_ASCII(text);
    PyObject *src = text;
    if (!l->ascii) {
        l->lower = PyObject_CallMethod(text, "lower", NULL);
        if (l->lower == NULL)
            return -1;
        src = l->lower;
    }
    l->kind = PyUnicode_KIND(src);
    l->data = PyUnicode_DATA(src);
    l->n = PyUnicode_GET_LENGTH(src);
    return 0;
}

static inline Py_UCS4 lowered_at(const Lowered *l, Py_ssize_t i)
{
    Py_UCS4 c = PyUnicode_READ(l->kind, l->data, i);
    return l->ascii && c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static void lowered_close(Lowered *l)
{
    Py_CLEAR(l->lower);
}

/* A token's code points into buf (its length), or -1 when it is longer than the table's
 * longest word (it cannot be one). */
static Py_ssize_t token_points(const Lowered *l, Py_ssize_t start, Py_ssize_t end,
                               const WordTable *t, Py_UCS4 *buf)
{
    if (end - start > t->max_len)
        return -1;
    for (Py_ssize_t i = start; i < end; i++)
        buf[i - start] = lowered_at(l, i);
    return end - start;
}

/* The cached stoplist table (see WordTable). */
static WordTable stop_cache;

static const WordTable *stopword_table(PyObject *stopwords, WordTable *scratch)
{
    if (PyFrozenSet_CheckExact(stopwords)) {
        if (stop_cache.source != stopwords) {
            table_clear(&stop_cache);
            if (table_build(&stop_cache, stopwords) < 0)
                return NULL;
            Py_INCREF(stopwords);
            stop_cache.source = stopwords;
        }
        return &stop_cache;
    }
    return table_build(scratch, stopwords) < 0 ? NULL : scratch;
}

/* "copyright" in the lower-cased text. */
static int has_copyright(const Lowered *l)
{
    static const char word[] = "copyright";
    for (Py_ssize_t i = 0; i + 9 <= l->n; i++) {
        if (lowered_at(l, i) != 'c')
            continue;
        Py_ssize_t k = 1;
        while (k < 9 && lowered_at(l, i + k) == (Py_UCS4)word[k])
            k++;
        if (k == 9)
            return 1;
    }
    return 0;
}

/* The statistics read character by character (see row). */
typedef struct {
    long upper, digits, sentences, commas, seps;
    int copyright_sign;
} Stats;

static inline void stats(Stats *st, int kind, const void *data, Py_ssize_t n)
{
    long upper = 0, digits = 0, sentences = 0, commas = 0, seps = 0;
    int in_token = 0, copyright_sign = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        /* ASCII answered here as the Unicode database answers it (faster per character). */
        if (c < 128 ? is_ascii_space(c) : Py_UNICODE_ISSPACE(c)) {
            in_token = 0;
            continue;
        }
        if (!in_token && (c < 128 ? c >= 'A' && c <= 'Z' : Py_UNICODE_ISUPPER(c)))
            upper++;
        in_token = 1;
        if (c < 128) {
            if (c >= '0' && c <= '9')
                digits++;
            else if (c == '.' || c == '!' || c == '?') {
                if (i + 1 == n || Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i + 1)))
                    sentences++;
            } else if (c == ',')
                commas++;
            else if (c == '|')
                seps++;
            continue;
        }
        if (Py_UNICODE_ISDIGIT(c))
            digits++;
        if (c == 0xA9)
            copyright_sign = 1;
        if (is_separator(c))
            seps++;
    }
    st->upper = upper;
    st->digits = digits;
    st->sentences = sentences;
    st->commas = commas;
    st->seps = seps;
    st->copyright_sign = copyright_sign;
}

static int row(PyObject *text, const WordTable *stopwords, int use_stopwords,
               Py_UCS4 *buf, double *out)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Stats st;
    switch (kind) {  /* one loop per storage width: the reads need no switch per character */
    case PyUnicode_1BYTE_KIND:
        stats(&st, PyUnicode_1BYTE_KIND, data, n);
        break;
    case PyUnicode_2BYTE_KIND:
        stats(&st, PyUnicode_2BYTE_KIND, data, n);
        break;
    default:
        stats(&st, PyUnicode_4BYTE_KIND, data, n);
        break;
    }
    long upper = st.upper, digits = st.digits, sentences = st.sentences, commas = st.commas;
    long seps = st.seps;
    int copyright_sign = st.copyright_sign;
    long stops = 0;
    int copyright_word = 0;
    if (use_stopwords || !copyright_sign) {
        Lowered l;
        if (lowered_open(&l, text) < 0)
            return -1;
        if (!copyright_sign)
            copyright_word = has_copyright(&l);
        if (use_stopwords) {
            /* str.split(): runs of non-whitespace of the lower-cased text. */
            Py_ssize_t start = -1;
            for (Py_ssize_t j = 0; j <= l.n; j++) {
                if (j < l.n && !Py_UNICODE_ISSPACE(PyUnicode_READ(l.kind, l.data, j))) {
                    if (start < 0)
                        start = j;
                    continue;
                }
                if (start < 0)
                    continue;
                Py_ssize_t len = token_points(&l, start, j, stopwords, buf);
                if (len >= 0 && table_find(stopwords, buf, len) >= 0)
                    stops++;
                start = -1;
            }
        }
        lowered_close(&l);
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
    PyObject *result = NULL;
    Py_UCS4 *buf = NULL;
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
    int use_stopwords = PySet_GET_SIZE(stopwords) > 0;
    WordTable scratch;
    memset(&scratch, 0, sizeof scratch);
    const WordTable *table = use_stopwords ? stopword_table(stopwords, &scratch) : NULL;
    if (use_stopwords && table == NULL)
        goto done;
    buf = PyMem_Malloc((use_stopwords ? table->max_len : 0) * sizeof(Py_UCS4) + 1);
    if (buf == NULL) {
        table_clear(&scratch);
        PyErr_NoMemory();
        goto done;
    }
    double *rows = (double *)out.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *text = PyList_GET_ITEM(texts, i);
        if (!PyUnicode_Check(text)) {
            PyErr_Format(PyExc_TypeError, "texts[%zd] is not a str", i);
            table_clear(&scratch);
            goto done;
        }
        if (row(text, table, use_stopwords, buf, rows + i * N_COLUMNS) < 0) {
            table_clear(&scratch);
            goto done;
        }
    }
    table_clear(&scratch);
    result = Py_None;
    Py_INCREF(result);
done:
    PyMem_Free(buf);
    PyBuffer_Release(&out);
    return result;
}

/* str.isalnum() or "_": what the regex \w matches in a str pattern. */
static int is_word_char(Py_UCS4 c)
{
    if (c < 128)
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_';
    return Py_UNICODE_ISALNUM(c);
}

static PyObject *title_tokens(PyObject *self, PyObject *args)
{
    PyObject *texts, *wanted;
    Py_buffer out;
    if (!PyArg_ParseTuple(args, "O!Ow*:title_tokens", &PyList_Type, &texts, &wanted, &out))
        return NULL;
    PyObject *result = NULL;
    WordTable table;
    memset(&table, 0, sizeof table);
    int32_t *seen = NULL;
    Py_UCS4 *buf = NULL;
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
    if (table_build(&table, wanted) < 0)
        goto done;
    seen = PyMem_Calloc(table.n_words + 1, sizeof(int32_t));  /* block index + 1 last seen in */
    buf = PyMem_Malloc((table.max_len + 1) * sizeof(Py_UCS4));
    if (seen == NULL || buf == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    double *rows = (double *)out.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *text = PyList_GET_ITEM(texts, i);
        if (!PyUnicode_Check(text)) {
            PyErr_Format(PyExc_TypeError, "texts[%zd] is not a str", i);
            goto done;
        }
        Lowered l;
        if (lowered_open(&l, text) < 0)
            goto done;
        long tokens = 0, inside = 0, distinct = 0;
        Py_ssize_t start = -1;
        /* \w+ runs of the lower-cased text (\w: str.isalnum() or "_"). */
        for (Py_ssize_t j = 0; j <= l.n; j++) {
            if (j < l.n && is_word_char(PyUnicode_READ(l.kind, l.data, j))) {
                if (start < 0)
                    start = j;
                continue;
            }
            if (start < 0)
                continue;
            tokens++;
            Py_ssize_t len = token_points(&l, start, j, &table, buf);
            Py_ssize_t k = len >= 0 ? table_find(&table, buf, len) : -1;
            if (k >= 0) {
                inside++;
                if (seen[k] != (int32_t)(i + 1)) {
                    seen[k] = (int32_t)(i + 1);
                    distinct++;
                }
            }
            start = -1;
        }
        lowered_close(&l);
        rows[3 * i] = (double)distinct;
        rows[3 * i + 1] = (double)inside;
        rows[3 * i + 2] = (double)tokens;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    table_clear(&table);
    PyMem_Free(seen);
    PyMem_Free(buf);
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

/* ---- block_features.block_fields: the numbers block_matrix reads of each Block, in one pass
 * over the blocks' attributes (each as Python reads it: ints converted to float64 as numpy
 * converts them, the path cut or padded with its root, the container's column by dict
 * lookup).  A block whose fields this does not cover (a path that is empty, a gap tag that is
 * not a non-empty str) makes it answer False: the caller then reads the fields in Python. */
static PyObject *s_text, *s_words, *s_link_words, *s_depth, *s_gap, *s_gap_tags, *s_path,
    *s_container_tag, *s_mask;

static int as_double(PyObject *block, PyObject *name, double *out)
{
    PyObject *v = PyObject_GetAttr(block, name);
    if (v == NULL)
        return -1;
    *out = PyFloat_AsDouble(v);  /* an int: PyLong_AsDouble, numpy's conversion */
    Py_DECREF(v);
    return *out == -1.0 && PyErr_Occurred() ? -1 : 0;
}

static PyObject *block_fields(PyObject *self, PyObject *args)
{
    PyObject *blocks, *container_index;
    Py_ssize_t other, width;
    Py_buffer own, paths, containers, masks, parents;
    if (!PyArg_ParseTuple(args, "O!O!nnw*w*w*w*w*:block_fields", &PyList_Type, &blocks,
                          &PyDict_Type, &container_index, &other, &width, &own, &paths,
                          &containers, &masks, &parents))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = PyList_GET_SIZE(blocks);
    if (width < 1 || own.len != n * 7 * (Py_ssize_t)sizeof(double) ||
        paths.len != n * width * (Py_ssize_t)sizeof(int64_t) ||
        containers.len != n * (Py_ssize_t)sizeof(int64_t) ||
        masks.len != n * (Py_ssize_t)sizeof(uint64_t) ||
        parents.len != n * (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "block_fields: output sizes do not fit the blocks");
        goto done;
    }
    double *o = (double *)own.buf;
    int64_t *pth = (int64_t *)paths.buf, *cont = (int64_t *)containers.buf;
    int64_t *par = (int64_t *)parents.buf;
    uint64_t *msk = (uint64_t *)masks.buf;
    int covered = 1;
    for (Py_ssize_t i = 0; i < n && covered; i++) {
        PyObject *b = PyList_GET_ITEM(blocks, i);
        double *row = o + 7 * i;
        PyObject *text = PyObject_GetAttr(b, s_text);
        if (text == NULL)
            goto done;
        if (!PyUnicode_Check(text)) {
            Py_DECREF(text);
            covered = 0;
            break;
        }
        row[2] = (double)PyUnicode_GET_LENGTH(text);
        Py_DECREF(text);
        if (as_double(b, s_words, &row[0]) < 0 || as_double(b, s_link_words, &row[1]) < 0 ||
            as_double(b, s_depth, &row[3]) < 0 || as_double(b, s_gap, &row[4]) < 0)
            goto done;
        /* _gap_flags: a br/hr among the gap tags; a tag starting with "h". */
        PyObject *tags = PyObject_GetAttr(b, s_gap_tags);
        if (tags == NULL)
            goto done;
        int brk = 0, heading = 0;
        if (!PyAnySet_Check(tags)) {
            covered = 0;
        } else if (PySet_GET_SIZE(tags) > 0) {
            PyObject *it = PyObject_GetIter(tags), *tag;
            if (it == NULL) {
                Py_DECREF(tags);
                goto done;
            }
            while ((tag = PyIter_Next(it)) != NULL) {
                if (!PyUnicode_Check(tag) || PyUnicode_GET_LENGTH(tag) == 0) {
                    covered = 0;
                } else {
                    if (PyUnicode_CompareWithASCIIString(tag, "br") == 0 ||
                        PyUnicode_CompareWithASCIIString(tag, "hr") == 0)
                        brk = 1;
                    if (PyUnicode_READ_CHAR(tag, 0) == 'h')
                        heading = 1;
                }
                Py_DECREF(tag);
            }
            Py_DECREF(it);
            if (PyErr_Occurred()) {
                Py_DECREF(tags);
                goto done;
            }
        }
        Py_DECREF(tags);
        row[5] = brk;
        row[6] = heading;
        /* the path from the container up, cut or padded with its root to `width` */
        PyObject *path = PyObject_GetAttr(b, s_path);
        if (path == NULL)
            goto done;
        if (!PyTuple_Check(path) || PyTuple_GET_SIZE(path) == 0) {
            Py_DECREF(path);
            covered = 0;
            break;
        }
        Py_ssize_t len = PyTuple_GET_SIZE(path);
        for (Py_ssize_t k = 0; k < width; k++) {
            long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(path, k < len ? k : len - 1));
            if (v == -1 && PyErr_Occurred()) {
                Py_DECREF(path);
                goto done;
            }
            pth[i * width + k] = v;
            if (k == 1)
                par[i] = len > 1 ? v : -1;
        }
        if (width < 2) {
            long long v = len > 1 ? PyLong_AsLongLong(PyTuple_GET_ITEM(path, 1)) : -1;
            if (v == -1 && PyErr_Occurred()) {
                Py_DECREF(path);
                goto done;
            }
            par[i] = v;
        }
        Py_DECREF(path);
        PyObject *tag = PyObject_GetAttr(b, s_container_tag);
        if (tag == NULL)
            goto done;
        PyObject *column = PyDict_GetItemWithError(container_index, tag);
        Py_DECREF(tag);
        if (column == NULL && PyErr_Occurred())
            goto done;
        long long c = column ? PyLong_AsLongLong(column) : (long long)other;
        if (c == -1 && PyErr_Occurred())
            goto done;
        cont[i] = c;
        PyObject *mask = PyObject_GetAttr(b, s_mask);
        if (mask == NULL)
            goto done;
        unsigned long long m = PyLong_AsUnsignedLongLong(mask);
        Py_DECREF(mask);
        if (m == (unsigned long long)-1 && PyErr_Occurred())
            goto done;
        msk[i] = m;
    }
    result = PyBool_FromLong(covered);
done:
    PyBuffer_Release(&own);
    PyBuffer_Release(&paths);
    PyBuffer_Release(&containers);
    PyBuffer_Release(&masks);
    PyBuffer_Release(&parents);
    return result;
}

/* ---- block_features.python_text_features: the block matrix's own, window, page and ancestor
 * numbers from the blocks' fields and string statistics, one pass per quantity instead of
 * some sixty numpy calls on a few hundred values.  Every number is made as numpy makes it:
 * sums of whole numbers (exact in any order; each ancestor group still sums in block order),
 * one float64 division per ratio (0 where the denominator is 0), the same comparisons.  The
 * logarithms are left to numpy: their arguments are written, in the stacked layout
 * python_text_features hands to np.log1p, so the same function makes the same bits. */

/* For each block, the sum of `v` over the blocks whose node at this level is its node. */
static Py_ssize_t group_slots(Py_ssize_t n)
{
    Py_ssize_t size = 8;
    while (size < 2 * n)
        size *= 2;
    return size;
}

static int group_sums(const int64_t *paths, Py_ssize_t n, Py_ssize_t width, Py_ssize_t level,
                      const double **values, int n_values, double **sums, Py_ssize_t *slots,
                      int64_t *keys, Py_ssize_t *group, double *acc)
{
    Py_ssize_t size = group_slots(n);
    for (Py_ssize_t j = 0; j < size; j++)
        slots[j] = -1;
    Py_ssize_t groups = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t key = paths[i * width + level];
        Py_ssize_t j = (Py_ssize_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 32) & (size - 1);
        while (slots[j] >= 0 && keys[slots[j]] != key)
            j = (j + 1) & (size - 1);
        if (slots[j] < 0) {
            slots[j] = groups;
            keys[groups++] = key;
        }
        group[i] = slots[j];
    }
    for (int v = 0; v < n_values; v++) {
        double *a = acc + (Py_ssize_t)v * n;
        for (Py_ssize_t g = 0; g < groups; g++)
            a[g] = 0.0;
        for (Py_ssize_t i = 0; i < n; i++)
            a[group[i]] += values[v][i];
        for (Py_ssize_t i = 0; i < n; i++)
            sums[v][i] = a[group[i]];
    }
    return 0;
}

static inline double ratio(double num, double den)
{
    return den != 0.0 ? num / den : 0.0;
}

static PyObject *text_features(PyObject *self, PyObject *args)
{
    Py_buffer own, paths_buf, text, out, columns, log_args;
    Py_ssize_t levels, window;
    double long_min, long_density;
    if (!PyArg_ParseTuple(args, "y*y*y*nnddw*y*w*:text_features", &own, &paths_buf, &text,
                          &levels, &window, &long_min, &long_density, &out, &columns,
                          &log_args))
        return NULL;
    PyObject *result = NULL;
    double *scratch = NULL;
    Py_ssize_t *slots = NULL, *group = NULL;
    int64_t *keys = NULL;
    Py_ssize_t n = own.len / (Py_ssize_t)(7 * sizeof(double));
    Py_ssize_t width = levels + 1, n_cols = 18 + 3 * levels, n_logs = 6 + 2 * levels;
    Py_ssize_t n_out = n > 0 ? out.len / (Py_ssize_t)(n * sizeof(double)) : 0;
    if (levels < 1 || window < 0 || n < 1 || own.len != n * 7 * (Py_ssize_t)sizeof(double) ||
        paths_buf.len != n * width * (Py_ssize_t)sizeof(int64_t) ||
        text.len != n * 8 * (Py_ssize_t)sizeof(double) ||
        out.len != n * n_out * (Py_ssize_t)sizeof(double) ||
        columns.len != n_cols * (Py_ssize_t)sizeof(int64_t) ||
        log_args.len != n_logs * n * (Py_ssize_t)sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "text_features: array sizes do not fit");
        goto done;
    }
    const int64_t *col = (const int64_t *)columns.buf;
    for (Py_ssize_t c = 0; c < n_cols; c++) {
        if (col[c] < 0 || col[c] >= n_out) {
            PyErr_SetString(PyExc_ValueError, "text_features: a column index out of range");
            goto done;
        }
    }
    const double *o = (const double *)own.buf, *t = (const double *)text.buf;
    const int64_t *paths = (const int64_t *)paths_buf.buf;
    double *m = (double *)out.buf, *lg = (double *)log_args.buf;
    /* scratch: nw links chars depth long word_cum(n+1) long_cum(n+1) ones, 4 sums x levels,
     * 4 accumulators */
    scratch = PyMem_Malloc(((8 + 4 * levels + 4) * n + 2) * sizeof(double));
    slots = PyMem_Malloc(group_slots(n) * sizeof(Py_ssize_t));
    group = PyMem_Malloc(n * sizeof(Py_ssize_t));
    keys = PyMem_Malloc(n * sizeof(int64_t));
    if (scratch == NULL || slots == NULL || group == NULL || keys == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    double *nw = scratch, *links = nw + n, *chars = links + n, *depth = chars + n;
    double *longw = depth + n, *word_cum = longw + n, *long_cum = word_cum + n + 1;
    double *ones = long_cum + n + 1, *ups = ones + n, *acc = ups + 4 * levels * n;
    double total_words = 0.0, total_links = 0.0, total_long = 0.0, max_depth = 0.0;
    word_cum[0] = long_cum[0] = 0.0;
    for (Py_ssize_t i = 0; i < n; i++) {
        const double *r = o + 7 * i;
        nw[i] = r[0];
        links[i] = r[1];
        chars[i] = r[2];
        depth[i] = r[3];
        ones[i] = 1.0;
        longw[i] = (nw[i] >= long_min && links[i] <= long_density * nw[i]) ? nw[i] : 0.0;
        total_words += nw[i];
        total_links += links[i];
        total_long += longw[i];
        if (i == 0 || depth[i] > max_depth)
            max_depth = depth[i];
        word_cum[i + 1] = word_cum[i] + nw[i];
        long_cum[i + 1] = long_cum[i] + longw[i];
    }
    if (max_depth == 0.0)
        max_depth = 1.0;
    /* ancestor groups: words, links, blocks, long words per level */
    for (Py_ssize_t l = 0; l < levels; l++) {
        const double *values[4] = {nw, links, ones, longw};
        double *sums[4];
        for (int v = 0; v < 4; v++)
            sums[v] = ups + ((Py_ssize_t)v * levels + l) * n;
        group_sums(paths, n, width, l + 1, values, 4, sums, slots, keys, group, acc);
    }
    const double *up_words = ups, *up_links = ups + levels * n, *up_count = ups + 2 * levels * n;
    const double *up_long = ups + 3 * levels * n;
    double page_links = ratio(total_links, total_words);
    for (Py_ssize_t i = 0; i < n; i++) {
        const double *tc = t + 8 * i;  /* upper digits sentences ends commas stops copyright seps */
        const double *r = o + 7 * i;
        double *row = m + i * n_out;
        Py_ssize_t lo = i - window > 0 ? i - window : 0;
        Py_ssize_t hi = i + window + 1 < n ? i + window + 1 : n;
        double win = word_cum[hi] - word_cum[lo];
        double c[18];
        c[0] = ratio(links[i], nw[i]);
        c[1] = ratio(chars[i] - nw[i] + 1, nw[i]);
        c[2] = ratio(tc[0], nw[i]);
        c[3] = ratio(tc[1], chars[i]);
        c[4] = ratio(tc[2], nw[i]);
        c[5] = tc[3];
        c[6] = ratio(tc[4], nw[i]);
        c[7] = ratio(tc[5], nw[i]);
        c[8] = tc[6];
        c[9] = tc[7];
        c[10] = r[5];
        c[11] = r[6];
        c[12] = (depth[i] < 60 ? depth[i] : 60) / 60;
        c[13] = depth[i] / max_depth;
        c[14] = (double)i / (double)n;
        c[15] = ratio(word_cum[i], total_words);
        c[16] = page_links;
        c[17] = ratio(long_cum[hi] - long_cum[lo], win);
        for (int k = 0; k < 18; k++)
            row[col[k]] = c[k];
        for (Py_ssize_t l = 0; l < levels; l++) {
            Py_ssize_t at = l * n + i;
            row[col[18 + 3 * l]] = ratio(up_links[at], up_words[at]);
            row[col[18 + 3 * l + 1]] = ratio(nw[i], up_words[at]);
            row[col[18 + 3 * l + 2]] = ratio(up_long[at], total_long);
        }
        lg[0 * n + i] = nw[i];
        lg[1 * n + i] = chars[i];
        lg[2 * n + i] = r[4];
        lg[3 * n + i] = win;
        lg[4 * n + i] = total_words;
        lg[5 * n + i] = (double)n;
        for (Py_ssize_t l = 0; l < levels; l++) {
            lg[(6 + l) * n + i] = up_words[l * n + i];
            lg[(6 + levels + l) * n + i] = up_count[l * n + i];
        }
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyMem_Free(scratch);
    PyMem_Free(slots);
    PyMem_Free(group);
    PyMem_Free(keys);
    PyBuffer_Release(&own);
    PyBuffer_Release(&paths_buf);
    PyBuffer_Release(&text);
    PyBuffer_Release(&out);
    PyBuffer_Release(&columns);
    PyBuffer_Release(&log_args);
    return result;
}

static PyMethodDef methods[] = {
    {"text_features", text_features, METH_VARARGS,
     "text_features(own, paths, text, levels, window, long_min_words, long_max_density, out, "
     "columns, log_args): block_features.python_text_features' numbers but the logarithms into "
     "out's columns, the logarithms' arguments into log_args ((6 + 2 levels) x n)."},
    {"block_fields", block_fields, METH_VARARGS,
     "block_fields(blocks, container_index, other, width, own, paths, containers, masks, "
     "parents) -> bool: block_features.python_block_fields into the arrays; False when a block "
     "needs the Python reading."},
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
    struct { PyObject **slot; const char *name; } names[] = {
        {&s_text, "text"}, {&s_words, "words"}, {&s_link_words, "link_words"},
        {&s_depth, "depth"}, {&s_gap, "gap"}, {&s_gap_tags, "gap_tags"}, {&s_path, "path"},
        {&s_container_tag, "container_tag"}, {&s_mask, "mask"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (*names[i].slot == NULL && (*names[i].slot = PyUnicode_InternFromString(names[i].name)) == NULL)
            return NULL;
    }
    PyObject *m = PyModule_Create(&module);
    /* The interface block_features.py calls (BLOCKTEXT_API): raise it with any change of it. */
    if (m != NULL && PyModule_AddIntConstant(m, "API", 2) < 0)
        Py_CLEAR(m);
    return m;
}
