/* C accelerator of corpuscrawl.extract.segment.cdom: the collapsed-DOM block walk.
 *
 * `tree_blocks` walks lxml's tree the way cdom.tree_blocks walks it with
 * lxml.etree.iterwalk(events=("start", "end")) and returns the same Block objects (same
 * text, words, link words, container tag, path, depth, mask, gap and gap tags).  It reads
 * libxml2's nodes directly: the element passed in gives its node through lxml's public C
 * API (lxml.etree_api.h, `rootNodeOrRaise`), and text, tails and attributes are read with
 * lxml's own exported functions (`textOf`, `tailOf`, `attributeValueFromNsName`), so they are
 * the strings `el.text`, `el.tail` and `el.get(...)` give.  What iterwalk visits is
 * reproduced: element children in document order, comments and processing instructions
 * skipped with their tails.  In raw mode (`removed` given) the walk reads the page's parsed
 * tree as if it were Page.clean_tree (comments, PIs and the `removed` elements taken out,
 * their tails joined to the text before them), so cdom.page_blocks needs no cleaned copy.
 *
 * Everything that decides a tag's role (dropped, inline, break, ancestor bit) and the
 * class/id keyword bits and hidden-style test are passed in from cdom.py, so the rules live
 * in one place.  A tree this walk does not reproduce exactly (entity references, namespaced
 * elements, an empty tag name, masks beyond 64 bits) returns None: the caller then runs the
 * Python walk.  tests/test_cdom_walk.py compares the two on every run.
 *
 * The node layout read here (xmlNode's type, name, ns, children, next) is libxml2's public
 * struct; lxml's `struct LxmlElement` gives `_c_node`.  cdom.py uses this module only when
 * the running lxml and libxml2 are the releases it was built against (LXML_VERSION and
 * LIBXML_VERSION below); otherwise it runs the Python walk.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include <libxml/tree.h>
#include <libxml/xmlversion.h>
#include "lxml-version.h"
#include "lxml.etree_api.h"

/* What the walk needs to know about one tag name, computed once per name and call. */
typedef struct {
    const xmlChar *name;  /* libxml2's name (the key) */
    PyObject *tag;        /* lower-cased tag (new reference) */
    int dropped, inline_, counted_gap, is_a, removed;
    uint64_t bit;
} TagInfo;

typedef struct {
    TagInfo **items;
    Py_ssize_t size, used;
} TagTable;

/* The class/id keyword groups (cdom.CLASS_KEYWORDS) as ordered literal alternatives, the
 * form cdom.keyword_alternatives() gives them: the regex tries its alternatives in order at
 * each position and the first that matches sets its group's bit, scanning on after it. */
typedef struct {
    int bit;
    int before, after;  /* no [a-z] right before / right after the literal */
    Py_ssize_t len;
    char lit[32];
    int next;           /* next alternative with the same first character, -1 at the end */
} Keyword;

typedef struct {
    Keyword items[128];
    int n;
    int first[128];     /* first alternative starting with each ASCII character, -1: none */
} Keywords;

static int keywords_parse(PyObject *table, Keywords *k)
{
    PyObject *seq = PySequence_Fast(table, "keywords must be a sequence");
    if (seq == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > 128) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "at most 128 keyword alternatives");
        return -1;
    }
    int last[128];
    for (int c = 0; c < 128; c++)
        k->first[c] = last[c] = -1;
    k->n = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Keyword *kw = &k->items[i];
        const char *lit;
        Py_ssize_t len;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "is#pp;a keyword is "
                              "(bit, literal, before, after)", &kw->bit, &lit, &len,
                              &kw->before, &kw->after)) {
            Py_DECREF(seq);
            return -1;
        }
        if (len < 1 || len >= (Py_ssize_t)sizeof kw->lit || kw->bit < 0 || kw->bit > 63) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "keyword literal of 1-31 characters, bit 0-63");
            return -1;
        }
        for (Py_ssize_t j = 0; j < len; j++) {
            if ((unsigned char)lit[j] >= 128) {
                Py_DECREF(seq);
                PyErr_SetString(PyExc_ValueError, "keyword literals are ASCII");
                return -1;
            }
        }
        memcpy(kw->lit, lit, len);
        kw->len = len;
        kw->next = -1;
        int c = (unsigned char)lit[0];
        if (last[c] < 0)
            k->first[c] = (int)i;
        else
            k->items[last[c]].next = (int)i;
        last[c] = (int)i;
        k->n++;
    }
    Py_DECREF(seq);
    return 0;
}

static int is_lower_ascii(Py_UCS4 c)
{
    return c >= 'a' && c <= 'z';
}

/* Bits of the keyword groups the regex's scan over s (lower-cased) finds. */
static uint64_t keywords_scan(const Keywords *k, const Py_UCS4 *s, Py_ssize_t n)
{
    uint64_t bits = 0;
    Py_ssize_t i = 0;
    while (i < n) {
        Py_UCS4 c = s[i];
        Py_ssize_t step = 1;
        if (c < 128) {
            for (int a = k->first[c]; a >= 0; a = k->items[a].next) {
                const Keyword *kw = &k->items[a];
                if (i + kw->len > n)
                    continue;
                if (kw->before && i > 0 && is_lower_ascii(s[i - 1]))
                    continue;
                Py_ssize_t j = 1;
                while (j < kw->len && s[i + j] == (Py_UCS4)(unsigned char)kw->lit[j])
                    j++;
                if (j < kw->len)
                    continue;
                if (kw->after && i + kw->len < n && is_lower_ascii(s[i + kw->len]))
                    continue;
                bits |= (uint64_t)1 << kw->bit;
                step = kw->len;
                break;
            }
        }
        i += step;
    }
    return bits;
}

/* keywords_scan over `a + " " + b` lower-cased as str.lower() does (a, b: str). */
static int keywords_of_pair(const Keywords *k, PyObject *a, PyObject *b, PyObject *s_lower,
                            uint64_t *bits)
{
    Py_ssize_t na = PyUnicode_GET_LENGTH(a), nb = PyUnicode_GET_LENGTH(b);
    Py_UCS4 stack_buf[256];
    Py_UCS4 *buf = stack_buf;
    Py_ssize_t n;
    if (PyUnicode_IS_ASCII(a) && PyUnicode_IS_ASCII(b)) {
        n = na + 1 + nb;
        if (n > 256 && (buf = PyMem_Malloc(n * sizeof(Py_UCS4))) == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        const Py_UCS1 *da = PyUnicode_1BYTE_DATA(a), *db = PyUnicode_1BYTE_DATA(b);
        for (Py_ssize_t i = 0; i < na; i++)
            buf[i] = da[i] >= 'A' && da[i] <= 'Z' ? da[i] + 32 : da[i];
        buf[na] = ' ';
        for (Py_ssize_t i = 0; i < nb; i++)
            buf[na + 1 + i] = db[i] >= 'A' && db[i] <= 'Z' ? db[i] + 32 : db[i];
        *bits = keywords_scan(k, buf, n);
    } else {
        PyObject *value = PyUnicode_FromFormat("%U %U", a, b);
        PyObject *lower = value ? PyObject_CallMethodNoArgs(value, s_lower) : NULL;
        Py_XDECREF(value);
        if (lower == NULL)
            return -1;
        buf = PyUnicode_AsUCS4Copy(lower);
        n = PyUnicode_GET_LENGTH(lower);
        Py_DECREF(lower);
        if (buf == NULL)
            return -1;
        *bits = keywords_scan(k, buf, n);
    }
    if (buf != stack_buf)
        PyMem_Free(buf);
    return 0;
}

/* One open element (the Python walk's stack entry). */
typedef struct {
    xmlNode *node;
    xmlNode *child;  /* next child to visit */
    long id;
    TagInfo *info;
    uint64_t mask;
    int inline_, in_link;
    PyObject *run;   /* raw mode: the text run not yet added (a str, or NULL) */
} Frame;

typedef struct {
    PyObject *block_type, *dropped, *inline_tags, *breaks, *tag_bit, *keyword_table, *hidden_style;
    PyObject *removed;  /* raw mode: tags Page.clean_tree removes (None: a cleaned tree) */
    int raw;
    Keywords keywords;
    PyObject *blocks, *pieces, *gap_tags;
    PyObject *empty, *space, *s_lower, *s_isdigit;
    Frame *stack;
    Py_ssize_t depth, capacity;
    long link_words, gap, next_id;
    TagTable tags;
    int unsupported;  /* set when the tree needs the Python walk */
} Walk;

static uint64_t hash_name(const xmlChar *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ *s) * 1099511628211ULL;
    return h;
}

static int is_cjk(Py_UCS4 c)
{
    return (c >= 0x3040 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x9fff) ||
           (c >= 0xf900 && c <= 0xfaff);
}

/* cdom.word_count: whitespace tokens (str.split()) plus one per two kana/ideographs. */
static long word_count(PyObject *text)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    long tokens = 0, cjk = 0;
    int in_token = 0;
    int ascii = PyUnicode_IS_ASCII(text);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (Py_UNICODE_ISSPACE(c)) {
            in_token = 0;
        } else {
            if (!in_token)
                tokens++;
            in_token = 1;
            if (!ascii && is_cjk(c))
                cjk++;
        }
    }
    return tokens + cjk / 2;
}

static long cjk_words(PyObject *text)
{
    if (PyUnicode_IS_ASCII(text))
        return 0;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    long cjk = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (is_cjk(PyUnicode_READ(kind, data, i)))
            cjk++;
    return cjk / 2;
}

static int is_space_only(PyObject *text)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i)))
            return 0;
    return n > 0;
}

static int set_contains(PyObject *set, PyObject *key)
{
    return PySet_Check(set) || PyFrozenSet_Check(set) ? PySet_Contains(set, key)
                                                      : PySequence_Contains(set, key);
}

/* The role of one tag name, as cdom.tree_blocks decides it. */
static int tag_info_fill(Walk *w, TagInfo *t, const xmlChar *name)
{
    PyObject *raw = PyUnicode_DecodeUTF8((const char *)name, strlen((const char *)name), NULL);
    if (raw == NULL)
        return -1;
    t->removed = w->raw ? set_contains(w->removed, raw) : 0;
    PyObject *tag = t->removed < 0 ? NULL : PyObject_CallMethodNoArgs(raw, w->s_lower);
    Py_DECREF(raw);
    if (tag == NULL)
        return -1;
    t->name = name;
    t->tag = tag;
    if (PyUnicode_GET_LENGTH(tag) == 0) {  /* the Python walk fails on it: let it */
        w->unsupported = 1;
        return 0;
    }
    if ((t->dropped = set_contains(w->dropped, tag)) < 0 ||
        (t->inline_ = set_contains(w->inline_tags, tag)) < 0)
        return -1;
    int brk = set_contains(w->breaks, tag);
    if (brk < 0)
        return -1;
    int heading = 0;
    if (PyUnicode_READ_CHAR(tag, 0) == 'h') {
        PyObject *rest = PyUnicode_Substring(tag, 1, PyUnicode_GET_LENGTH(tag));
        if (rest == NULL)
            return -1;
        PyObject *digits = PyObject_CallMethodNoArgs(rest, w->s_isdigit);
        Py_DECREF(rest);
        if (digits == NULL)
            return -1;
        heading = PyObject_IsTrue(digits);
        Py_DECREF(digits);
        if (heading < 0)
            return -1;
    }
    t->counted_gap = brk || heading;
    t->is_a = PyUnicode_CompareWithASCIIString(tag, "a") == 0;
    t->bit = 0;
    PyObject *bit = PyDict_GetItemWithError(w->tag_bit, tag);
    if (bit == NULL && PyErr_Occurred())
        return -1;
    if (bit != NULL) {
        t->bit = PyLong_AsUnsignedLongLong(bit);
        if (PyErr_Occurred()) {
            PyErr_Clear();
            w->unsupported = 1;
        }
    }
    return 0;
}

static TagInfo *tag_info(Walk *w, const xmlChar *name)
{
    /* Open addressing over pointers: an entry never moves once made (frames point to it). */
    TagTable *tt = &w->tags;
    if (tt->used * 2 >= tt->size) {
        Py_ssize_t size = tt->size ? tt->size * 2 : 64;
        TagInfo **items = PyMem_Calloc(size, sizeof(TagInfo *));
        if (items == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        for (Py_ssize_t i = 0; i < tt->size; i++) {
            if (tt->items[i] == NULL)
                continue;
            uint64_t j = hash_name(tt->items[i]->name) & (size - 1);
            while (items[j] != NULL)
                j = (j + 1) & (size - 1);
            items[j] = tt->items[i];
        }
        PyMem_Free(tt->items);
        tt->items = items;
        tt->size = size;
    }
    uint64_t j = hash_name(name) & (tt->size - 1);
    while (tt->items[j] != NULL) {
        if (tt->items[j]->name == name || strcmp((const char *)tt->items[j]->name,
                                                 (const char *)name) == 0)
            return tt->items[j];
        j = (j + 1) & (tt->size - 1);
    }
    TagInfo *info = PyMem_Calloc(1, sizeof(TagInfo));
    if (info == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    if (tag_info_fill(w, info, name) < 0) {
        Py_XDECREF(info->tag);
        PyMem_Free(info);
        return NULL;
    }
    tt->items[j] = info;
    tt->used++;
    return info;
}

/* cdom.tree_blocks' add(): one text piece of the current block. */
static int add_text(Walk *w, PyObject *text, int in_link)
{
    if (text == NULL)
        return -1;
    int rc = 0;
    if (text == Py_None || PyUnicode_GET_LENGTH(text) == 0) {
        /* nothing */
    } else if (is_space_only(text)) {
        if (PyList_GET_SIZE(w->pieces) > 0)
            rc = PyList_Append(w->pieces, w->space);
    } else {
        rc = PyList_Append(w->pieces, text);
        if (rc == 0 && in_link)
            w->link_words += word_count(text);
    }
    Py_DECREF(text);
    return rc;
}

/* cdom.tree_blocks' flush(): the pieces so far become a block. */
static int flush(Walk *w)
{
    Py_ssize_t n_pieces = PyList_GET_SIZE(w->pieces);
    if (n_pieces > 0) {
        if (w->depth == 0) {  /* the Python walk fails here: let it */
            w->unsupported = 1;
            return 0;
        }
        PyObject *joined;
        if (n_pieces == 1) {
            joined = PyList_GET_ITEM(w->pieces, 0);
            Py_INCREF(joined);
        } else {
            joined = PyUnicode_Join(w->empty, w->pieces);
            if (joined == NULL)
                return -1;
        }
        PyObject *parts = PyUnicode_Split(joined, NULL, -1);
        Py_DECREF(joined);
        if (parts == NULL)
            return -1;
        Py_ssize_t n_parts = PyList_GET_SIZE(parts);
        if (n_parts > 0) {
            PyObject *text = PyUnicode_Join(w->space, parts);
            Py_DECREF(parts);
            if (text == NULL)
                return -1;
            long words = (long)n_parts + cjk_words(text);
            Frame *container = NULL;
            Py_ssize_t n_path = 0;
            for (Py_ssize_t i = w->depth - 1; i >= 0; i--) {
                if (!w->stack[i].inline_) {
                    if (container == NULL)
                        container = &w->stack[i];
                    n_path++;
                }
            }
            if (container == NULL)
                container = &w->stack[w->depth - 1];
            PyObject *path = PyTuple_New(n_path);
            PyObject *gap_tags = PyFrozenSet_New(w->gap_tags);
            PyObject *args[9] = {text, PyLong_FromLong(words),
                                 PyLong_FromLong(w->link_words < words ? w->link_words : words),
                                 container->info->tag, path, PyLong_FromSsize_t(w->depth),
                                 PyLong_FromUnsignedLongLong(w->stack[w->depth - 1].mask),
                                 PyLong_FromLong(w->gap), gap_tags};
            int ok = path && gap_tags && args[1] && args[2] && args[5] && args[6] && args[7];
            if (ok) {
                Py_ssize_t k = 0;
                for (Py_ssize_t i = w->depth - 1; i >= 0 && ok; i--) {
                    if (w->stack[i].inline_)
                        continue;
                    PyObject *id = PyLong_FromLong(w->stack[i].id);
                    if (id == NULL)
                        ok = 0;
                    else
                        PyTuple_SET_ITEM(path, k++, id);
                }
            }
            PyObject *block = ok ? PyObject_Vectorcall(w->block_type, args, 9, NULL) : NULL;
            Py_DECREF(text);
            Py_XDECREF(args[1]);
            Py_XDECREF(args[2]);
            Py_XDECREF(path);
            Py_XDECREF(args[5]);
            Py_XDECREF(args[6]);
            Py_XDECREF(args[7]);
            Py_XDECREF(gap_tags);
            if (block == NULL)
                return -1;
            int rc = PyList_Append(w->blocks, block);
            Py_DECREF(block);
            if (rc < 0 || PySet_Clear(w->gap_tags) < 0)
                return -1;
            w->gap = 0;
        } else {
            Py_DECREF(parts);
        }
        if (PyList_SetSlice(w->pieces, 0, n_pieces, NULL) < 0)
            return -1;
    }
    w->link_words = 0;
    return 0;
}

/* Element children as iterwalk visits them (comments and PIs skipped; in raw mode they are
 * returned too: their tails join the text run); entity references mark the tree
 * unsupported. */
static xmlNode *next_element(Walk *w, xmlNode *node)
{
    for (; node != NULL; node = node->next) {
        if (node->type == XML_ELEMENT_NODE)
            return node;
        if (w->raw && (node->type == XML_COMMENT_NODE || node->type == XML_PI_NODE))
            return node;
        if (node->type == XML_ENTITY_REF_NODE) {
            w->unsupported = 1;
            return NULL;
        }
    }
    return NULL;
}

static PyObject *attribute(xmlNode *node, const char *name)
{
    return attributeValueFromNsName(node, NULL, (const xmlChar *)name);
}

/* cdom._hidden: a style hiding the element, or a `hidden` attribute. */
static int hidden(Walk *w, xmlNode *node)
{
    PyObject *style = attribute(node, "style");
    if (style == NULL)
        return -1;
    int result = 0;
    if (style != Py_None && PyUnicode_GET_LENGTH(style) > 0) {
        PyObject *match = PyObject_CallOneArg(w->hidden_style, style);
        if (match == NULL) {
            Py_DECREF(style);
            return -1;
        }
        result = PyObject_IsTrue(match);
        Py_DECREF(match);
    }
    Py_DECREF(style);
    if (result)
        return result;
    PyObject *flag = attribute(node, "hidden");
    if (flag == NULL)
        return -1;
    result = flag != Py_None;
    Py_DECREF(flag);
    return result;
}

/* cdom.class_bits: keyword bits of the class and id attributes. */
static int class_bits(Walk *w, xmlNode *node, uint64_t *bits)
{
    *bits = 0;
    PyObject *cls = attribute(node, "class");
    if (cls == NULL)
        return -1;
    PyObject *ident = attribute(node, "id");
    if (ident == NULL) {
        Py_DECREF(cls);
        return -1;
    }
    int has_cls = cls != Py_None && PyUnicode_GET_LENGTH(cls) > 0;
    int has_id = ident != Py_None && PyUnicode_GET_LENGTH(ident) > 0;
    int rc = 0;
    if (has_cls || has_id)
        rc = keywords_of_pair(&w->keywords, has_cls ? cls : w->empty,
                              has_id ? ident : w->empty, w->s_lower, bits);
    Py_DECREF(cls);
    Py_DECREF(ident);
    return rc;
}

/* 1: skip the element (dropped or hidden), 0: walk it, -1: error. */
static int skipped(Walk *w, xmlNode *node, TagInfo *info)
{
    return info->dropped ? 1 : hidden(w, node);
}

/* Raw mode: Page.clean_tree removes comments, PIs and the `removed` elements and appends
 * each one's tail to the previous kept sibling's tail or to the parent's text; the text
 * between two kept nodes is then one string.  `text` (a new reference, None, or NULL on
 * error) joins the frame's run. */
static int run_append(Frame *f, PyObject *text)
{
    if (text == NULL)
        return -1;
    if (f->run == NULL) {
        f->run = text;
        return 0;
    }
    if (text != Py_None && PyUnicode_GET_LENGTH(text) > 0) {
        if (f->run == Py_None) {
            Py_SETREF(f->run, text);
            return 0;
        }
        PyUnicode_Append(&f->run, text);
    }
    Py_DECREF(text);
    return f->run == NULL ? -1 : 0;
}

/* The run so far becomes a text piece of the current block (cdom.tree_blocks' add()). */
static int run_flush(Walk *w, Frame *f)
{
    if (f->run == NULL)
        return 0;
    PyObject *run = f->run;
    f->run = NULL;
    return add_text(w, run, f->in_link);
}

static int push(Walk *w, xmlNode *node, TagInfo *info)
{
    if (!info->inline_) {
        if (flush(w) < 0)
            return -1;
        w->gap++;
        if (info->counted_gap && PySet_Add(w->gap_tags, info->tag) < 0)
            return -1;
    }
    Frame *parent = w->depth ? &w->stack[w->depth - 1] : NULL;
    uint64_t bits;
    if (class_bits(w, node, &bits) < 0)
        return -1;
    if (w->depth == w->capacity) {
        Py_ssize_t capacity = w->capacity ? w->capacity * 2 : 64;
        Frame *stack = PyMem_Realloc(w->stack, capacity * sizeof(Frame));
        if (stack == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        w->stack = stack;
        w->capacity = capacity;
        parent = w->depth ? &w->stack[w->depth - 1] : NULL;
    }
    Frame *f = &w->stack[w->depth++];
    f->node = node;
    f->child = NULL;
    f->id = w->next_id++;
    f->info = info;
    f->mask = (parent ? parent->mask : 0) | info->bit | bits;
    f->inline_ = info->inline_;
    f->in_link = (parent ? parent->in_link : 0) || info->is_a;
    f->run = NULL;
    if ((w->raw ? run_append(f, textOf(node)) : add_text(w, textOf(node), f->in_link)) < 0)
        return -1;
    f->child = next_element(w, node->children);
    return 0;
}

/* Checks a node before it is walked: an element lxml names without a namespace. */
static TagInfo *element_info(Walk *w, xmlNode *node)
{
    if (node->ns != NULL && node->ns->href != NULL) {
        w->unsupported = 1;
        return NULL;
    }
    if (node->name == NULL) {
        w->unsupported = 1;
        return NULL;
    }
    return tag_info(w, node->name);
}

static int walk(Walk *w, xmlNode *root)
{
    TagInfo *info = element_info(w, root);
    if (info == NULL || w->unsupported)
        return w->unsupported ? 0 : -1;
    int skip = skipped(w, root, info);
    if (skip)
        return skip < 0 ? -1 : 0;
    if (push(w, root, info) < 0)
        return -1;
    while (w->depth > 0 && !w->unsupported) {
        Frame *top = &w->stack[w->depth - 1];
        xmlNode *child = top->child;
        if (child != NULL) {
            top->child = next_element(w, child->next);
            if (child->type != XML_ELEMENT_NODE) {  /* raw mode: a comment or PI */
                if (run_append(top, tailOf(child)) < 0)
                    return -1;
                continue;
            }
            info = element_info(w, child);
            if (info == NULL)
                return w->unsupported ? 0 : -1;
            if (w->unsupported)
                return 0;
            if (info->removed) {
                if (run_append(top, tailOf(child)) < 0)
                    return -1;
                continue;
            }
            if (w->raw && run_flush(w, top) < 0)
                return -1;
            skip = skipped(w, child, info);
            if (skip < 0)
                return -1;
            if (skip) {
                if ((w->raw ? run_append(top, tailOf(child))
                            : add_text(w, tailOf(child), top->in_link)) < 0)
                    return -1;
            } else if (push(w, child, info) < 0) {
                return -1;
            }
            continue;
        }
        /* the end event of top */
        if (w->raw && run_flush(w, top) < 0)
            return -1;
        if (!top->inline_) {
            if (flush(w) < 0)
                return -1;
            w->gap++;
        }
        xmlNode *node = top->node;
        w->depth--;
        if (w->depth > 0) {
            Frame *parent = &w->stack[w->depth - 1];
            if ((w->raw ? run_append(parent, tailOf(node))
                        : add_text(w, tailOf(node), parent->in_link)) < 0)
                return -1;
        }
    }
    if (w->unsupported)
        return 0;
    return flush(w);
}

static PyObject *tree_blocks(PyObject *self, PyObject *args)
{
    PyObject *root;
    Walk w;
    memset(&w, 0, sizeof w);
    w.removed = Py_None;
    if (!PyArg_ParseTuple(args, "OOOOOO!OO|O:tree_blocks", &root, &w.block_type, &w.dropped,
                          &w.inline_tags, &w.breaks, &PyDict_Type, &w.tag_bit,
                          &w.keyword_table, &w.hidden_style, &w.removed))
        return NULL;
    w.raw = w.removed != Py_None;
    if (keywords_parse(w.keyword_table, &w.keywords) < 0)
        return NULL;
    struct LxmlElement *element = rootNodeOrRaise(root);
    if (element == NULL)
        return NULL;
    xmlNode *node = element->_c_node;
    PyObject *result = NULL;
    if (node == NULL || node->type != XML_ELEMENT_NODE) {
        Py_DECREF(element);
        Py_RETURN_NONE;
    }
    w.blocks = PyList_New(0);
    w.pieces = PyList_New(0);
    w.gap_tags = PySet_New(NULL);
    w.empty = PyUnicode_FromString("");
    w.space = PyUnicode_FromString(" ");
    w.s_lower = PyUnicode_InternFromString("lower");
    w.s_isdigit = PyUnicode_InternFromString("isdigit");
    if (w.blocks && w.pieces && w.gap_tags && w.empty && w.space && w.s_lower &&
        w.s_isdigit && walk(&w, node) == 0) {
        if (w.unsupported) {
            result = Py_None;
            Py_INCREF(result);
        } else {
            result = w.blocks;
            Py_INCREF(result);
        }
    }
    for (Py_ssize_t i = 0; i < w.depth; i++)
        Py_XDECREF(w.stack[i].run);
    for (Py_ssize_t i = 0; i < w.tags.size; i++) {
        if (w.tags.items[i] != NULL) {
            Py_XDECREF(w.tags.items[i]->tag);
            PyMem_Free(w.tags.items[i]);
        }
    }
    PyMem_Free(w.tags.items);
    PyMem_Free(w.stack);
    Py_XDECREF(w.blocks);
    Py_XDECREF(w.pieces);
    Py_XDECREF(w.gap_tags);
    Py_XDECREF(w.empty);
    Py_XDECREF(w.space);
    Py_XDECREF(w.s_lower);
    Py_XDECREF(w.s_isdigit);
    Py_DECREF(element);
    return result;
}

static PyObject *keyword_bits(PyObject *self, PyObject *args)
{
    PyObject *a, *b, *table;
    Keywords k;
    if (!PyArg_ParseTuple(args, "UUO:keyword_bits", &a, &b, &table) ||
        keywords_parse(table, &k) < 0)
        return NULL;
    PyObject *s_lower = PyUnicode_InternFromString("lower");
    if (s_lower == NULL)
        return NULL;
    uint64_t bits;
    int rc = keywords_of_pair(&k, a, b, s_lower, &bits);
    Py_DECREF(s_lower);
    return rc < 0 ? NULL : PyLong_FromUnsignedLongLong(bits);
}

/* ---- Lookups for the headline (extract/meta/title.py): what `root.iter(tag)`, an XPath
 * `//meta[@attr="value"]/@content` and `element.text_content()` give, read in one C walk
 * without an element proxy per visited element.  A tree they do not read as lxml does (a
 * namespaced element, an entity reference) gives None: the caller then asks lxml. */

/* The next node after `node` in document order within `root`'s subtree, descending only
 * into elements (what lxml's iter() visits); NULL past the end. */
static xmlNode *next_in_subtree(xmlNode *node, xmlNode *root)
{
    if (node->type == XML_ELEMENT_NODE && node->children != NULL)
        return node->children;
    while (node != root) {
        if (node->next != NULL)
            return node->next;
        node = node->parent;
    }
    return NULL;
}

/* 1: an element named `name` without a namespace; 0: another node; -1: a node lxml would
 * name or read otherwise (namespaced element, entity reference). */
static int element_named(xmlNode *node, const char *name)
{
    if (node->type == XML_ENTITY_REF_NODE)
        return -1;
    if (node->type != XML_ELEMENT_NODE)
        return 0;
    if (node->ns != NULL && node->ns->href != NULL)
        return -1;
    return node->name != NULL && strcmp((const char *)node->name, name) == 0;
}

/* libxml2's string value of an element (what XPath string() and lxml's text_content() give:
 * its descendant text and CDATA nodes' content in document order) as str; Py_None (new
 * reference) when the subtree holds an entity reference. */
static PyObject *string_value(xmlNode *element)
{
    Py_ssize_t size = 0;
    for (xmlNode *n = element; n != NULL; n = next_in_subtree(n, element)) {
        if (n->type == XML_ENTITY_REF_NODE)
            Py_RETURN_NONE;
        if ((n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) && n->content)
            size += (Py_ssize_t)strlen((const char *)n->content);
    }
    char *buf = PyMem_Malloc(size + 1);
    if (buf == NULL)
        return PyErr_NoMemory();
    Py_ssize_t at = 0;
    for (xmlNode *n = element; n != NULL; n = next_in_subtree(n, element)) {
        if ((n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) && n->content) {
            size_t len = strlen((const char *)n->content);
            memcpy(buf + at, n->content, len);
            at += (Py_ssize_t)len;
        }
    }
    PyObject *text = PyUnicode_DecodeUTF8(buf, at, "strict");
    PyMem_Free(buf);
    return text;
}

static xmlNode *element_node(PyObject *root, struct LxmlElement **holder)
{
    *holder = rootNodeOrRaise(root);
    if (*holder == NULL)
        return NULL;
    xmlNode *node = (*holder)->_c_node;
    if (node == NULL || node->type != XML_ELEMENT_NODE) {
        Py_DECREF(*holder);
        PyErr_SetString(PyExc_ValueError, "an element is needed");
        return NULL;
    }
    return node;
}

static PyObject *first_text(PyObject *self, PyObject *args)
{
    PyObject *root;
    const char *tag;
    struct LxmlElement *holder;
    if (!PyArg_ParseTuple(args, "Os:first_text", &root, &tag))
        return NULL;
    xmlNode *top = element_node(root, &holder);
    if (top == NULL)
        return NULL;
    PyObject *result = NULL;
    for (xmlNode *n = top; n != NULL; n = next_in_subtree(n, top)) {
        int named = element_named(n, tag);
        if (named < 0) {
            result = Py_None;
            Py_INCREF(result);
            break;
        }
        if (named) {
            PyObject *text = string_value(n);
            result = text == NULL || text == Py_None ? text : Py_BuildValue("(N)", text);
            break;
        }
    }
    if (result == NULL && !PyErr_Occurred())
        result = Py_BuildValue("(O)", Py_None);
    Py_DECREF(holder);
    return result;
}

/* Whether `node` is `top` or below it. */
static int within(xmlNode *node, xmlNode *top)
{
    for (; node != NULL; node = node->parent)
        if (node == top)
            return 1;
    return 0;
}

/* The text_content() of an <a> element whose href `accept` takes, appended to `links`: 1
 * taken, 0 not, -1 error, -2 a subtree lxml must read. */
static int take_link(xmlNode *a, PyObject *accept, PyObject *empty, PyObject *links)
{
    PyObject *href = attribute(a, "href");
    if (href == NULL)
        return -1;
    PyObject *verdict = PyObject_CallOneArg(accept, href == Py_None ? empty : href);
    Py_DECREF(href);
    int take = verdict == NULL ? -1 : PyObject_IsTrue(verdict);
    Py_XDECREF(verdict);
    if (take <= 0)
        return take;
    PyObject *text = string_value(a);
    if (text == NULL)
        return -1;
    if (text == Py_None) {
        Py_DECREF(text);
        return -2;
    }
    int rc = PyList_Append(links, text);
    Py_DECREF(text);
    return rc < 0 ? -1 : 1;
}

/* One walk over the whole document of `top`: per (attribute, value) pair the content of each
 * <meta attribute=value> (`//meta[@attribute="value"]/@content`) and, when `links_top` is
 * given, the text_content() of each <a> under it whose href `accept` takes.  A new (metas
 * tuple, links list or None), Py_None when the tree needs lxml, NULL on error. */
static PyObject *document_walk(xmlNode *top, PyObject *pairs, xmlNode *links_top,
                               PyObject *accept)
{
    PyObject *seq = PySequence_Fast(pairs, "pairs must be a sequence of (attribute, value)");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n_pairs = PySequence_Fast_GET_SIZE(seq);
    const char *attr[16];
    PyObject *value[16];
    if (n_pairs > 16) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "at most 16 (attribute, value) pairs");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n_pairs; i++) {
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "sU;a pair is (attribute, value)",
                              &attr[i], &value[i])) {
            Py_DECREF(seq);
            return NULL;
        }
    }
    PyObject *metas = PyTuple_New(n_pairs);
    PyObject *links = links_top != NULL ? PyList_New(0) : Py_NewRef(Py_None);
    PyObject *empty = PyUnicode_FromString("");
    int ok = metas != NULL && links != NULL && empty != NULL, lxml_needed = 0;
    for (Py_ssize_t i = 0; ok && i < n_pairs; i++) {
        PyObject *found = PyList_New(0);
        if (found == NULL)
            ok = 0;
        else
            PyTuple_SET_ITEM(metas, i, found);
    }
    /* `//meta` searches the whole document: every top-level node's subtree, in order. */
    xmlNode *start = top;
    if (top->doc != NULL && top->doc->children != NULL)
        start = top->doc->children;
    else
        while (start->prev != NULL)
            start = start->prev;
    xmlNode *tree = start, *n = start;
    while (ok && !lxml_needed && n != NULL) {
        int named = element_named(n, "meta");
        if (named < 0) {
            lxml_needed = 1;
            break;
        }
        PyObject *content = NULL;
        for (Py_ssize_t i = 0; named && ok && i < n_pairs; i++) {
            PyObject *have = attribute(n, attr[i]);
            if (have == NULL) {
                ok = 0;
                break;
            }
            int equal = have != Py_None ? PyUnicode_Compare(have, value[i]) == 0 : 0;
            Py_DECREF(have);
            if (PyErr_Occurred()) {
                ok = 0;
                break;
            }
            if (!equal)
                continue;
            if (content == NULL && (content = attribute(n, "content")) == NULL) {
                ok = 0;
                break;
            }
            if (content != Py_None && PyList_Append(PyTuple_GET_ITEM(metas, i), content) < 0)
                ok = 0;
        }
        Py_XDECREF(content);
        if (ok && links_top != NULL && !named && element_named(n, "a") > 0 &&
            within(n, links_top)) {
            int taken = take_link(n, accept, empty, links);
            if (taken == -1)
                ok = 0;
            else if (taken == -2)
                lxml_needed = 1;
        }
        n = next_in_subtree(n, tree);
        if (n == NULL && tree->next != NULL)
            tree = n = tree->next;
    }
    Py_DECREF(seq);
    Py_XDECREF(empty);
    if (!ok || lxml_needed) {
        Py_XDECREF(metas);
        Py_XDECREF(links);
        return ok ? Py_NewRef(Py_None) : NULL;
    }
    return Py_BuildValue("(NN)", metas, links);
}

static PyObject *meta_contents(PyObject *self, PyObject *args)
{
    PyObject *root, *pairs;
    struct LxmlElement *holder;
    if (!PyArg_ParseTuple(args, "OO:meta_contents", &root, &pairs))
        return NULL;
    xmlNode *top = element_node(root, &holder);
    if (top == NULL)
        return NULL;
    PyObject *found = document_walk(top, pairs, NULL, NULL);
    Py_DECREF(holder);
    if (found == NULL || found == Py_None)
        return found;
    PyObject *metas = Py_NewRef(PyTuple_GET_ITEM(found, 0));
    Py_DECREF(found);
    return metas;
}

static PyObject *metas_and_links(PyObject *self, PyObject *args)
{
    PyObject *root, *pairs, *links_root, *accept;
    struct LxmlElement *holder, *links_holder;
    if (!PyArg_ParseTuple(args, "OOOO:metas_and_links", &root, &pairs, &links_root, &accept))
        return NULL;
    xmlNode *top = element_node(root, &holder);
    if (top == NULL)
        return NULL;
    xmlNode *links_top = element_node(links_root, &links_holder);
    if (links_top == NULL) {
        Py_DECREF(holder);
        return NULL;
    }
    PyObject *found = links_top->doc == top->doc ? document_walk(top, pairs, links_top, accept)
                                                 : Py_NewRef(Py_None);
    Py_DECREF(holder);
    Py_DECREF(links_holder);
    return found;
}

static PyMethodDef methods[] = {
    {"keyword_bits", keyword_bits, METH_VARARGS,
     "keyword_bits(class, id, keywords) -> int: the class/id keyword bits the walk gives an"
     " element with these attribute values (cdom._value_bits of the lower-cased pair)."},
    {"first_text", first_text, METH_VARARGS,
     "first_text(root, tag) -> (str | None,) | None: the text_content() of the first element"
     " `tag` in root.iter(tag) order, wrapped in a 1-tuple ((None,): none); None when the tree"
     " needs lxml (a namespaced element or an entity reference on the way)."},
    {"meta_contents", meta_contents, METH_VARARGS,
     "meta_contents(root, pairs) -> tuple[list[str], ...] | None: per (attribute, value) pair,"
     " root.xpath('//meta[@attribute=\"value\"]/@content') (document order); None when the"
     " tree needs lxml."},
    {"metas_and_links", metas_and_links, METH_VARARGS,
     "metas_and_links(root, pairs, links_root, accept) -> (metas, links) | None: what"
     " meta_contents(root, pairs) gives and the text_content() of each element of"
     " links_root.iter('a') for which accept(a.get('href') or '') is true, in one walk"
     " over the document (links_root in root's document); None when the tree needs lxml."},
    {"tree_blocks", tree_blocks, METH_VARARGS,
     "tree_blocks(root, Block, dropped, inline, breaks, tag_bit, keywords, hidden_style,"
     " removed=None) -> list[Block] | None: cdom.tree_blocks' block sequence under root, or"
     " None when the tree needs the Python walk.  With `removed` (the tags Page.clean_tree"
     " removes), root is in the page's raw tree and the walk gives the blocks of its cleaned"
     " copy."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_cdom",
    "C accelerator of corpuscrawl.extract.segment.cdom (the collapsed-DOM block walk).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__cdom(void)
{
    if (import_lxml__etree() < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    /* The interface cdom.py calls (cdom.CDOM_API): raise it with any change of it. */
    if (PyModule_AddIntConstant(m, "API", 2) < 0 ||
        PyModule_AddStringConstant(m, "LXML_VERSION", LXML_VERSION_STRING) < 0 ||
        PyModule_AddIntConstant(m, "LIBXML_VERSION", LIBXML_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
