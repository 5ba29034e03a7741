/* Optional accelerator of the boilerplate export stage's per-character work.
 *
 * What (each function equals a pure-Python reference that stays the fallback):
 *
 * - split_paragraphs(text) -> (paragraphs, pending): the stripped non-blank
 *   lines of a text as Paragraph tuples (line, normalized form, BLAKE2b
 *   fingerprint (_blake2b.c)), and the indices of those that need the Unicode
 *   rules (their form and fingerprint are None); equal to
 *   normalize._split_paragraphs_py.  The finished tuples are untracked by the
 *   cyclic garbage collector: a str, a str and an int cannot form a cycle, and
 *   CPython untracks such tuples on its own only when they are exact tuples,
 *   never a named tuple, so every held Paragraph used to be traversed by every
 *   full collection (26 000 of them after 400 benchmark pages).
 * - keyword_lines(lines) -> indices: a superset of the lines (str without line
 *   breaks) whose case-folded form contains a notice keyword (what
 *   patterns.keyword_lines finds in the case-folded lines joined): the
 *   lines holding an ASCII keyword, ASCII case ignored, and every line holding a
 *   character outside ASCII and the "inert" table (characters that case folding
 *   leaves alone and no keyword contains); patterns.notice_kind re-checks them.
 *
 * configure_fold(masks, separators, paragraph, digest) installs the calendar words
 * and their masks (bytes -> bytes), the separator characters (non-ASCII characters
 * that fold to a word separator), the Paragraph class (a tuple subclass of
 * three items) and the fingerprint function (bytes -> int, normalize._digest);
 * configure_keywords(inert, keywords) the inert characters
 * and the ASCII keywords.  normalize.py and patterns.py call them on import.
 *
 * Why: the export stage must add < 10 % of the crawl's extraction time per page
 * (benchmarks/results/boilerplate.md).  In Python these steps cost one object or
 * one regular-expression step per word or per keyword search, ~0.25 ms per page;
 * one pass over the characters in C does the same work ~10 times faster.
 * tests/test_boilerplate_fold.py compares every function with its reference.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* Sizes chosen for the CPU cache: the stage runs between extractions, which evict it, so
 * every table touched per character or per word is small (a per-word probe of a 45 KB
 * table cost more than the rest of the pass).  A 1 KB filter answers "not a calendar
 * word" for ~98 % of the words; only the others probe the 16 KB table. */
#define SLOTS 512           /* power of two, at least twice the number of calendar words */
#define KEY_MAX 22
#define VALUE_MAX 7
#define FILTER_BITS 8192
#define KEYWORDS_MAX 32
#define KEYWORD_LEN_MAX 32
#define BMP 0x10000


typedef struct {               /* 32 bytes */
    unsigned char used;
    unsigned char key_len;
    unsigned char value_len;
    char key[KEY_MAX];
    char value[VALUE_MAX];
} slot_t;

static slot_t calendar[SLOTS];
static uint8_t calendar_filter[FILTER_BITS / 8];
static unsigned char fold_table[128];        /* ASCII -> folded byte, ' ' = separator */
static uint8_t separator[BMP / 8];           /* bit set: non-ASCII character folding to ' ' */
static uint8_t inert[BMP / 8];               /* bit set: casefold(c) == c and in no keyword */
static char keywords[KEYWORDS_MAX][KEYWORD_LEN_MAX];
static Py_ssize_t keyword_len[KEYWORDS_MAX];
static uint32_t first_byte[256];             /* keywords starting with a byte (bit set) */
static uint8_t first_pair[0x10000 / 8];      /* bit set: the first two bytes of a keyword */
static int fold_ready = 0, keywords_ready = 0;

#define HAS_BIT(bits, i) ((bits)[(i) >> 3] & (1u << ((i) & 7)))

static uint32_t fnv1a(const char *s, Py_ssize_t n)
{
    uint32_t h = 2166136261u;
    for (Py_ssize_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

#define FNV_OFFSET 2166136261u
#define FNV_PRIME 16777619u

/* The calendar entry of word[0:n], whose FNV-1a hash is h (computed while folding). */
static const slot_t *lookup(const char *word, Py_ssize_t n, uint32_t h)
{
    if (n > KEY_MAX)
        return NULL;
    if (!HAS_BIT(calendar_filter, (h >> 16) & (FILTER_BITS - 1)))
        return NULL;
    uint32_t i = h & (SLOTS - 1);
    while (calendar[i].used) {
        if (calendar[i].key_len == n && memcmp(calendar[i].key, word, (size_t)n) == 0)
            return &calendar[i];
        i = (i + 1) & (SLOTS - 1);
    }
    return NULL;
}

static int set_masks(PyObject *masks)
{
    if (!PyDict_Check(masks) || PyDict_Size(masks) > SLOTS / 2) {
        PyErr_SetString(PyExc_ValueError, "masks: a dict of at most 256 bytes -> bytes");
        return -1;
    }
    memset(calendar, 0, sizeof(calendar));
    memset(calendar_filter, 0, sizeof(calendar_filter));
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(masks, &pos, &key, &value)) {
        if (!PyBytes_Check(key) || !PyBytes_Check(value)) {
            PyErr_SetString(PyExc_TypeError, "masks: a dict of bytes -> bytes");
            return -1;
        }
        Py_ssize_t kn = PyBytes_GET_SIZE(key), vn = PyBytes_GET_SIZE(value);
        if (kn > KEY_MAX || vn > VALUE_MAX || vn > kn) {
            PyErr_SetString(PyExc_ValueError, "masks: a word too long or a mask longer than it");
            return -1;
        }
        const char *k = PyBytes_AS_STRING(key);
        uint32_t h = fnv1a(k, kn), i = h & (SLOTS - 1);
        calendar_filter[((h >> 16) & (FILTER_BITS - 1)) >> 3] |= (uint8_t)(1u << ((h >> 16) & 7));
        while (calendar[i].used)
            i = (i + 1) & (SLOTS - 1);   /* dict keys are distinct */
        calendar[i].used = 1;
        calendar[i].key_len = (unsigned char)kn;
        calendar[i].value_len = (unsigned char)vn;
        memcpy(calendar[i].key, k, (size_t)kn);
        memcpy(calendar[i].value, PyBytes_AS_STRING(value), (size_t)vn);
    }
    return 0;
}

static int set_keywords(PyObject *words)
{
    if (!PyTuple_Check(words) || PyTuple_GET_SIZE(words) > KEYWORDS_MAX) {
        PyErr_SetString(PyExc_ValueError, "keywords: a tuple of at most 32 bytes");
        return -1;
    }
    memset(first_byte, 0, sizeof(first_byte));
    memset(first_pair, 0, sizeof(first_pair));
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(words); k++) {
        PyObject *word = PyTuple_GET_ITEM(words, k);
        if (!PyBytes_Check(word) || PyBytes_GET_SIZE(word) < 2
                || PyBytes_GET_SIZE(word) > KEYWORD_LEN_MAX) {
            PyErr_SetString(PyExc_ValueError, "keywords: bytes of 2 to 32 bytes");
            return -1;
        }
        const unsigned char *w = (const unsigned char *)PyBytes_AS_STRING(word);
        for (Py_ssize_t j = 0; j < PyBytes_GET_SIZE(word); j++) {
            if (w[j] >= 128 || (w[j] >= 'A' && w[j] <= 'Z')) {
                PyErr_SetString(PyExc_ValueError, "keywords: lower-case ASCII only");
                return -1;
            }
        }
        memcpy(keywords[k], w, (size_t)PyBytes_GET_SIZE(word));
        keyword_len[k] = PyBytes_GET_SIZE(word);
        first_byte[w[0]] |= (uint32_t)1 << k;
        first_pair[(w[0] << 8 | w[1]) >> 3] |= (uint8_t)(1u << (w[1] & 7));
    }
    return 0;
}

static int set_table(uint8_t *table, PyObject *chars, const char *name)
{
    if (!PyUnicode_Check(chars)) {
        PyErr_Format(PyExc_TypeError, "%s: a str", name);
        return -1;
    }
    memset(table, 0, BMP / 8);
    for (Py_ssize_t i = 0; i < PyUnicode_GET_LENGTH(chars); i++) {
        Py_UCS4 c = PyUnicode_READ_CHAR(chars, i);
        if (c < 128 || c >= BMP) {
            PyErr_Format(PyExc_ValueError, "%s: characters within U+0080..U+FFFF only", name);
            return -1;
        }
        table[c >> 3] |= (uint8_t)(1u << (c & 7));
    }
    return 0;
}

static PyTypeObject *paragraph_type = NULL;   /* normalize.Paragraph */
static PyObject *digest_function = NULL;      /* normalize._digest: bytes -> int */

static PyObject *configure_fold(PyObject *self, PyObject *args)
{
    PyObject *masks, *separators, *paragraph, *digest;
    (void)self;
    if (!PyArg_ParseTuple(args, "OUOO:configure_fold", &masks, &separators, &paragraph,
                          &digest))
        return NULL;
    if (!PyCallable_Check(digest)) {
        PyErr_SetString(PyExc_TypeError, "configure_fold: digest must be callable");
        return NULL;
    }
    fold_ready = 0;
    if (!PyType_Check(paragraph) || !PyType_IsSubtype((PyTypeObject *)paragraph, &PyTuple_Type)
            || ((PyTypeObject *)paragraph)->tp_dictoffset != 0) {
        PyErr_SetString(PyExc_TypeError,
                        "configure_fold: paragraph must be a tuple subclass without __dict__");
        return NULL;
    }
    if (set_masks(masks) < 0 || set_table(separator, separators, "separators") < 0)
        return NULL;
    Py_INCREF(paragraph);
    Py_XSETREF(paragraph_type, (PyTypeObject *)paragraph);
    Py_INCREF(digest);
    Py_XSETREF(digest_function, digest);
    fold_ready = 1;
    Py_RETURN_NONE;
}

static PyObject *configure_keywords(PyObject *self, PyObject *args)
{
    PyObject *inert_chars, *words;
    (void)self;
    if (!PyArg_ParseTuple(args, "UO:configure_keywords", &inert_chars, &words))
        return NULL;
    keywords_ready = 0;
    if (set_table(inert, inert_chars, "inert") < 0 || set_keywords(words) < 0)
        return NULL;
    keywords_ready = 1;
    Py_RETURN_NONE;
}

/* Close the word that started at out[start] (out[0:*len] so far): mask it if it is a
 * calendar word.  Masks are never longer than their words, so out stays large enough. */
static void end_word(char *out, Py_ssize_t start, Py_ssize_t *len, uint32_t hash)
{
    const slot_t *hit = lookup(out + start, *len - start, hash);
    if (hit != NULL) {
        memcpy(out + start, hit->value, hit->value_len);
        *len = start + hit->value_len;
    }
}

/* One character of the folding state machine (see fold()); c: the folded byte. */
#define FOLD_STEP(c)                                                      \
    do {                                                                  \
        if ((c) == ' ') {                                                 \
            if (start >= 0) {                                             \
                end_word(out, start, &len, hash);                         \
                start = -1;                                               \
            }                                                             \
        }                                                                 \
        else if (start < 0) {                                             \
            if (len > 0)                                                  \
                out[len++] = ' ';                                         \
            start = len;                                                  \
            out[len++] = (char)(c);                                       \
            hash = (FNV_OFFSET ^ (c)) * FNV_PRIME;                        \
        }                                                                 \
        else if (!((c) == '0' && out[len - 1] == '0')) {                  \
            out[len++] = (char)(c);   /* a run of digits is one "0" */    \
            hash = (hash ^ (c)) * FNV_PRIME;                              \
        }                                                                 \
    } while (0)

#define FOLD_LOOP(TYPE)                                                   \
    do {                                                                  \
        const TYPE *p = data;                                             \
        for (Py_ssize_t i = a; i < b; i++) {                              \
            Py_UCS4 ch = p[i];                                            \
            unsigned char c;                                              \
            if (ch < 128)                                                 \
                c = fold_table[ch];                                       \
            else if (ch < BMP && HAS_BIT(separator, ch))                  \
                c = ' ';                                                  \
            else                                                          \
                return -1;                                                \
            FOLD_STEP(c);                                                 \
        }                                                                 \
    } while (0)

/* The folded form of text[a:b] written to out (at most b - a bytes); -1 when the text
 * holds a character that is neither ASCII nor a separator (the Unicode rules apply). */
static Py_ssize_t fold(int kind, const void *data, Py_ssize_t a, Py_ssize_t b, char *out)
{
    Py_ssize_t len = 0, start = -1;
    uint32_t hash = FNV_OFFSET;   /* FNV-1a of the current word, for the calendar look-up */
    switch (kind) {
    case PyUnicode_1BYTE_KIND: FOLD_LOOP(Py_UCS1); break;
    case PyUnicode_2BYTE_KIND: FOLD_LOOP(Py_UCS2); break;
    default: FOLD_LOOP(Py_UCS4); break;
    }
    if (start >= 0)
        end_word(out, start, &len, hash);
    return len;
}

static int not_configured(const char *what)
{
    PyErr_Format(PyExc_RuntimeError, "corpuscrawl.boilerplate._fold: call %s() first", what);
    return -1;
}

static int append_new(PyObject *list, PyObject *item)
{
    if (item == NULL)
        return -1;
    int rc = PyList_Append(list, item);
    Py_DECREF(item);
    return rc;
}

/* Index of the first "\n" of data[pos:n] (n when none), one loop per string kind. */
static Py_ssize_t find_newline(int kind, const void *data, Py_ssize_t pos, Py_ssize_t n)
{
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *p = data, *hit = memchr(p + pos, '\n', (size_t)(n - pos));
        return hit != NULL ? hit - p : n;
    }
    if (kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *p = data;
        while (pos < n && p[pos] != '\n')
            pos++;
        return pos;
    }
    const Py_UCS4 *p = data;
    while (pos < n && p[pos] != '\n')
        pos++;
    return pos;
}

/* A new Paragraph (line, form, fingerprint), stealing the three references (NULL and
 * all released on failure); untracked by the garbage collector when complete. */
static PyObject *new_paragraph(PyObject *line, PyObject *form, PyObject *fingerprint)
{
    PyObject *item = NULL;
    if (line != NULL && form != NULL && fingerprint != NULL)
        item = paragraph_type->tp_alloc(paragraph_type, 3);
    if (item == NULL) {
        Py_XDECREF(line);
        Py_XDECREF(form);
        Py_XDECREF(fingerprint);
        return NULL;
    }
    PyTuple_SET_ITEM(item, 0, line);
    PyTuple_SET_ITEM(item, 1, form);
    PyTuple_SET_ITEM(item, 2, fingerprint);
    if (form != Py_None)
        PyObject_GC_UnTrack(item);
    return item;
}

static PyObject *split_paragraphs(PyObject *self, PyObject *text)
{
    (void)self;
    if (!fold_ready && not_configured("configure_fold") < 0)
        return NULL;
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "split_paragraphs expects a str");
        return NULL;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    PyObject *paragraphs = PyList_New(0), *pending = PyList_New(0);
    char *out = PyMem_Malloc(n > 0 ? (size_t)n : 1);
    if (paragraphs == NULL || pending == NULL || out == NULL)
        goto error;
    for (Py_ssize_t pos = 0; pos <= n;) {
        Py_ssize_t end = find_newline(kind, data, pos, n);
        Py_ssize_t a = pos, b = end;   /* str.strip(): Unicode white space */
        while (a < b && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, a)))
            a++;
        while (b > a && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, b - 1)))
            b--;
        pos = end + 1;
        if (a == b)
            continue;
        PyObject *line = PyUnicode_Substring(text, a, b), *item;
        Py_ssize_t len = fold(kind, data, a, b, out);
        if (len < 0) {   /* the Unicode rules: normalize.py finishes it */
            if (append_new(pending, PyLong_FromSsize_t(PyList_GET_SIZE(paragraphs))) < 0) {
                Py_XDECREF(line);
                goto error;
            }
            item = new_paragraph(line, Py_NewRef(Py_None), Py_NewRef(Py_None));
        }
        else {
            PyObject *form = PyBytes_FromStringAndSize(out, len), *fingerprint = NULL;
            if (form != NULL)
                fingerprint = PyObject_CallOneArg(digest_function, form);
            Py_XDECREF(form);
            item = new_paragraph(line, PyUnicode_DecodeASCII(out, len, NULL), fingerprint);
        }
        if (append_new(paragraphs, item) < 0)
            goto error;
    }
    PyMem_Free(out);
    PyObject *result = PyTuple_Pack(2, paragraphs, pending);
    Py_DECREF(paragraphs);
    Py_DECREF(pending);
    return result;
error:
    PyMem_Free(out);
    Py_XDECREF(paragraphs);
    Py_XDECREF(pending);
    if (!PyErr_Occurred())
        PyErr_NoMemory();
    return NULL;
}

/* The line, ASCII lower-cased and inert characters as 0x80, into low; 1 when it holds a
 * character that is neither (the line is a candidate whatever its keywords). */
#define LOWER_LOOP(TYPE)                                                  \
    do {                                                                  \
        const TYPE *p = data;                                             \
        for (Py_ssize_t i = 0; i < n; i++) {                              \
            Py_UCS4 ch = p[i];                                            \
            if (ch < 128)                                                 \
                low[i] = (unsigned char)(ch - 'A' < 26u ? ch + 32 : ch);  \
            else if (ch < BMP && HAS_BIT(inert, ch))                      \
                low[i] = 0x80;                                            \
            else                                                          \
                return 1;                                                 \
        }                                                                 \
    } while (0)

static int lower_line(PyObject *line, unsigned char *low)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(line);
    const void *data = PyUnicode_DATA(line);
    switch (PyUnicode_KIND(line)) {
    case PyUnicode_1BYTE_KIND: LOWER_LOOP(Py_UCS1); break;
    case PyUnicode_2BYTE_KIND: LOWER_LOOP(Py_UCS2); break;
    default: LOWER_LOOP(Py_UCS4); break;
    }
    return 0;
}

static int has_keyword(const unsigned char *low, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i + 1 < n; i++) {
        unsigned pair = (unsigned)low[i] << 8 | low[i + 1];
        if (!HAS_BIT(first_pair, pair))   /* the first two bytes of no keyword */
            continue;
        for (uint32_t bits = first_byte[low[i]]; bits != 0; bits &= bits - 1) {
            int k = __builtin_ctz(bits);
            Py_ssize_t len = keyword_len[k];
            if (n - i >= len && memcmp(low + i, keywords[k], (size_t)len) == 0)
                return 1;
        }
    }
    return 0;
}

static PyObject *keyword_lines(PyObject *self, PyObject *lines)
{
    (void)self;
    if (!keywords_ready && not_configured("configure_keywords") < 0)
        return NULL;
    if (!PyList_Check(lines)) {
        PyErr_SetString(PyExc_TypeError, "keyword_lines expects a list of str");
        return NULL;
    }
    PyObject *found = PyList_New(0);
    unsigned char stack[4096], *low = stack;
    Py_ssize_t size = (Py_ssize_t)sizeof(stack);
    if (found == NULL)
        return NULL;
    for (Py_ssize_t index = 0; index < PyList_GET_SIZE(lines); index++) {
        PyObject *line = PyList_GET_ITEM(lines, index);
        if (!PyUnicode_Check(line)) {
            PyErr_SetString(PyExc_TypeError, "keyword_lines expects a list of str");
            goto error;
        }
        Py_ssize_t n = PyUnicode_GET_LENGTH(line);
        if (n > size) {
            if (low != stack)
                PyMem_Free(low);
            low = PyMem_Malloc((size_t)n);
            size = n;
            if (low == NULL) {
                PyErr_NoMemory();
                goto error;
            }
        }
        if ((lower_line(line, low) || has_keyword(low, n))
                && append_new(found, PyLong_FromSsize_t(index)) < 0)
            goto error;
    }
    if (low != stack)
        PyMem_Free(low);
    return found;
error:
    if (low != stack)
        PyMem_Free(low);
    Py_DECREF(found);
    return NULL;
}

static PyMethodDef methods[] = {
    {"configure_fold", configure_fold, METH_VARARGS,
     "configure_fold(masks: dict[bytes, bytes], separators: str, paragraph: type, digest) -> None\n\n"
     "Install the calendar masks, the separator characters, the Paragraph class and\n"
     "the fingerprint function."},
    {"configure_keywords", configure_keywords, METH_VARARGS,
     "configure_keywords(inert: str, keywords: tuple[bytes, ...]) -> None\n\n"
     "Install the inert characters and the ASCII notice keywords (see _fold.c)."},
    {"split_paragraphs", split_paragraphs, METH_O,
     "split_paragraphs(text: str) -> tuple[list[Paragraph], list[int]]\n\n"
     "The stripped non-blank lines as Paragraphs; indices of those needing the Unicode rules."},
    {"keyword_lines", keyword_lines, METH_O,
     "keyword_lines(lines: list[str]) -> list[int]\n\n"
     "Indices of the lines that may contain a notice keyword (a superset)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fold",
    "C accelerator of the boilerplate export stage (see _fold.c).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fold(void)
{
    for (int c = 0; c < 128; c++) {
        if (c >= 'A' && c <= 'Z')
            fold_table[c] = (unsigned char)(c + 32);
        else if ((c >= 'a' && c <= 'z') || c == '_')
            fold_table[c] = (unsigned char)c;
        else if (c >= '0' && c <= '9')
            fold_table[c] = '0';
        else
            fold_table[c] = ' ';
    }
    return PyModule_Create(&module);
}
