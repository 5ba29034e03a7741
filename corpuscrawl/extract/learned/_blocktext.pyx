# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Native per-block numbers of :mod:`corpuscrawl.extract.learned.block_features` and
:mod:`corpuscrawl.extract.learned.title_features`.

``text_columns(texts, stopwords, out)`` fills ``out`` (``len(texts) x 8`` float64) with, per
block text, what ``block_features.python_text_columns`` computes: words starting upper-case,
digits, sentence ends, ends with punctuation, commas, stopwords, copyright mark, separators.
Every test is the one the Python code makes, character by character (``str.split``'s
whitespace, ``str.isupper`` / ``str.isdigit`` of one character, the regex ``[.!?](?:\\s|$)``
whose ``\\s`` is ``str.isspace``, ``str.lower`` for the stopword and "copyright" tests), so the
numbers are identical.

``title_tokens(texts, wanted, out)`` gives ``title_features.title_matrix`` what it reads of
each block: its ``\\w+`` tokens of ``str.lower()`` (``\\w``: ``str.isalnum()`` or "_"), how many
are title words, and how many distinct title words it holds.

``tree_distances``, ``block_fields`` and ``text_features`` are ``block_features``'
functions of the same names over the blocks' paths and fields; ``text_features`` makes every
float as numpy makes it (see there).  ``tests/test_block_text.py`` compares each with its
Python twin, bit for bit.
"""

cimport cython
from cpython.dict cimport PyDict_GetItemWithError
from cpython.mem cimport PyMem_Calloc, PyMem_Free, PyMem_Malloc
from cpython.ref cimport PyObject
from cpython.set cimport PyAnySet_Check, PyFrozenSet_CheckExact
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.string cimport memcmp

cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object)
    int PyUnicode_KIND(object)
    const void *PyUnicode_DATA(object)
    Py_ssize_t PyUnicode_GET_LENGTH(object)
    enum:
        PyUnicode_1BYTE_KIND
        PyUnicode_2BYTE_KIND

cdef extern from "Python.h" nogil:
    Py_UCS4 PyUnicode_READ(int kind, const void *data, Py_ssize_t index)
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch)
    bint Py_UNICODE_ISUPPER(Py_UCS4 ch)
    bint Py_UNICODE_ISDIGIT(Py_UCS4 ch)
    bint Py_UNICODE_ISALNUM(Py_UCS4 ch)
    ctypedef unsigned char Py_UCS1
    ctypedef unsigned short Py_UCS2

#: The interface ``block_features.py`` calls (``BLOCKTEXT_API``): raise it with any change of it.
API = 2

cdef enum:
    N_COLUMNS = 8       # text_columns' statistics per text
    N_OWN = 7           # block_fields' own numbers per block
    N_C_FEATURES = 18   # text_features' numbers that are not per ancestor level

#: A text as one of the three storage widths of str.
ctypedef fused chars_t:
    Py_UCS1
    Py_UCS2
    Py_UCS4


cdef inline bint is_end_punct(Py_UCS4 c) noexcept nogil:
    return c == '.' or c == '!' or c == '?' or c == '"' or c == "'" or c == 0x201D or c == ')'


cdef inline bint is_ascii_space(Py_UCS4 c) noexcept nogil:
    """str.isspace() of an ASCII character: \\t \\n \\v \\f \\r, the separators 0x1c-0x1f, space."""
    return c == ' ' or 0x09 <= c <= 0x0D or 0x1C <= c <= 0x1F


cdef inline bint is_separator(Py_UCS4 c) noexcept nogil:
    return c == '|' or c == 0xBB or c == 0x203A or c == 0xB7 or c == 0x2022


cdef inline Py_UCS4 ascii_lower(Py_UCS4 c) noexcept nogil:
    """str.lower() of an ASCII character."""
    return <Py_UCS4>(<uint32_t>c + 32) if 'A' <= c <= 'Z' else c


cdef inline bint is_word_char(Py_UCS4 c) noexcept nogil:
    """str.isalnum() or "_": what the regex \\w matches in a str pattern."""
    if c < 128:
        return 'a' <= c <= 'z' or 'A' <= c <= 'Z' or '0' <= c <= '9' or c == '_'
    return Py_UNICODE_ISALNUM(c)


# ---- A set of words as a hash table of code points: membership of a token without making a
# str of it.  A token is looked up by its (lower-cased) code points, which is what
# `token in words` decides for str tokens and a set of str (other members never equal a str).

cdef inline uint32_t hash_points(const Py_UCS4 *c, Py_ssize_t n) noexcept nogil:
    """FNV-1a over the code points (as find_token computes it)."""
    cdef uint32_t h = 2166136261u
    cdef Py_ssize_t i
    for i in range(n):
        h = (h ^ <uint32_t>c[i]) * 16777619u
    return h


@cython.final
cdef class WordTable:
    """The str members of a set or frozenset as code points, open addressing on their hashes;
    ``buf`` holds a token's code points for :meth:`find_token` and ``seen`` one mark per word."""
    cdef object source          # the set the table was built from
    cdef Py_ssize_t n_words, n_slots, max_len
    cdef Py_ssize_t *slots      # word index, or -1
    cdef uint32_t *hashes
    cdef Py_ssize_t *starts
    cdef Py_ssize_t *lens
    cdef Py_UCS4 *chars
    cdef Py_UCS4 *buf           # max_len + 1 code points
    cdef Py_ssize_t *seen       # per word: the text index + 1 it was last counted in

    def __cinit__(self, words):
        cdef list members = [member for member in words if isinstance(member, str)]
        cdef Py_ssize_t n = len(members), total = 0, at = 0, k, j, slot, length
        cdef str w
        for w in members:
            total += len(w)
        self.source = words
        self.n_slots = 8
        while self.n_slots < 2 * len(words) + 2:
            self.n_slots *= 2
        self.slots = <Py_ssize_t *>PyMem_Malloc(self.n_slots * sizeof(Py_ssize_t))
        self.hashes = <uint32_t *>PyMem_Malloc((n + 1) * sizeof(uint32_t))
        self.starts = <Py_ssize_t *>PyMem_Malloc((n + 1) * sizeof(Py_ssize_t))
        self.lens = <Py_ssize_t *>PyMem_Malloc((n + 1) * sizeof(Py_ssize_t))
        self.chars = <Py_UCS4 *>PyMem_Malloc((total + 1) * sizeof(Py_UCS4))
        self.seen = <Py_ssize_t *>PyMem_Calloc(n + 1, sizeof(Py_ssize_t))
        if (self.slots == NULL or self.hashes == NULL or self.starts == NULL or
                self.lens == NULL or self.chars == NULL or self.seen == NULL):
            raise MemoryError()
        for slot in range(self.n_slots):
            self.slots[slot] = -1
        for k in range(n):
            w = members[k]
            length = len(w)
            for j in range(length):
                self.chars[at + j] = w[j]
            self.starts[k] = at
            self.lens[k] = length
            self.hashes[k] = hash_points(self.chars + at, length)
            if length > self.max_len:
                self.max_len = length
            slot = self.hashes[k] & (self.n_slots - 1)
            while self.slots[slot] != -1:
                slot = (slot + 1) & (self.n_slots - 1)
            self.slots[slot] = k
            at += length
        self.n_words = n
        self.buf = <Py_UCS4 *>PyMem_Malloc((self.max_len + 1) * sizeof(Py_UCS4))
        if self.buf == NULL:
            raise MemoryError()

    def __dealloc__(self):
        PyMem_Free(self.slots)
        PyMem_Free(self.hashes)
        PyMem_Free(self.starts)
        PyMem_Free(self.lens)
        PyMem_Free(self.chars)
        PyMem_Free(self.buf)
        PyMem_Free(self.seen)

    cdef Py_ssize_t find_token(self, Lowered l, Py_ssize_t start,
                               Py_ssize_t end) noexcept nogil:
        """The index of the word that is the lowered text's ``[start:end]``, or -1 (its code
        points are copied to ``buf`` and hashed in one pass)."""
        cdef Py_ssize_t n = end - start, i, slot, k
        cdef Py_UCS4 *buf = self.buf
        cdef const Py_UCS1 *ascii = <const Py_UCS1 *>l.data + start
        cdef uint32_t h = 2166136261u  # hash_points' FNV-1a
        cdef Py_UCS4 c
        if n > self.max_len or self.n_words == 0:
            return -1
        if l.ascii:  # one byte per character, A-Z lower-cased here
            for i in range(n):
                c = ascii_lower(ascii[i])
                buf[i] = c
                h = (h ^ <uint32_t>c) * 16777619u
        else:
            for i in range(n):
                c = PyUnicode_READ(l.kind, l.data, start + i)
                buf[i] = c
                h = (h ^ <uint32_t>c) * 16777619u
        slot = h & (self.n_slots - 1)
        while self.slots[slot] != -1:
            k = self.slots[slot]
            if (self.hashes[k] == h and self.lens[k] == n and
                    memcmp(self.chars + self.starts[k], buf, n * sizeof(Py_UCS4)) == 0):
                return k
            slot = (slot + 1) & (self.n_slots - 1)
        return -1


#: The table of the last frozenset of stopwords passed (the stoplists are cached frozensets).
cdef WordTable stop_cache = None


cdef WordTable stopword_table(object stopwords):
    """The table of ``stopwords``: the cached one while the same frozenset is passed again; a
    set (mutable) is read each call."""
    global stop_cache
    if not PyFrozenSet_CheckExact(stopwords):
        return WordTable(stopwords)
    if stop_cache is None or stop_cache.source is not stopwords:
        stop_cache = WordTable(stopwords)
    return stop_cache


# ---- A text lower-cased, read one code point at a time: an ASCII text is lower-cased here
# (str.lower() of ASCII is A-Z -> a-z), any other through str.lower() itself.

cdef struct Lowered:
    int kind
    const void *data
    Py_ssize_t n
    bint ascii


cdef object lowered_text(object text):
    """``text.lower()``, but an ASCII text itself (its A-Z are lower-cased as they are read)."""
    return text if PyUnicode_IS_ASCII(text) else text.lower()


cdef inline Lowered lowered_view(object text, object lowered) noexcept:
    """The view of ``lowered`` (``lowered_text(text)``, kept while the view is read)."""
    cdef Lowered l
    l.ascii = PyUnicode_IS_ASCII(text)
    l.kind = PyUnicode_KIND(lowered)
    l.data = PyUnicode_DATA(lowered)
    l.n = PyUnicode_GET_LENGTH(lowered)
    return l


cdef inline Py_UCS4 lowered_at(Lowered l, Py_ssize_t i) noexcept nogil:
    cdef Py_UCS4 c = PyUnicode_READ(l.kind, l.data, i)
    return ascii_lower(c) if l.ascii else c


cdef bint has_copyright(Lowered l) noexcept nogil:
    """"copyright" in the lower-cased text."""
    cdef const char *word = b"copyright"
    cdef Py_ssize_t i, k
    for i in range(l.n - 8):
        if lowered_at(l, i) != 'c':
            continue
        k = 1
        while k < 9 and lowered_at(l, i + k) == <Py_UCS4>word[k]:
            k += 1
        if k == 9:
            return True
    return False


# ---- text_columns

cdef struct Stats:
    long upper, digits, sentences, commas, seps
    bint copyright_sign


cdef void stats(Stats *st, const chars_t *data, Py_ssize_t n) noexcept nogil:
    """The statistics read character by character, one loop per storage width."""
    cdef long upper = 0, digits = 0, sentences = 0, commas = 0, seps = 0
    cdef bint in_token = False, copyright_sign = False
    cdef Py_ssize_t i
    cdef Py_UCS4 c
    for i in range(n):
        c = data[i]
        # ASCII answered here as the Unicode database answers it (faster per character).
        if (is_ascii_space(c) if c < 128 else Py_UNICODE_ISSPACE(c)):
            in_token = False
            continue
        if not in_token and ('A' <= c <= 'Z' if c < 128 else Py_UNICODE_ISUPPER(c)):
            upper += 1
        in_token = True
        if c < 128:
            if '0' <= c <= '9':
                digits += 1
            elif c == '.' or c == '!' or c == '?':
                if i + 1 == n or Py_UNICODE_ISSPACE(data[i + 1]):
                    sentences += 1
            elif c == ',':
                commas += 1
            elif c == '|':
                seps += 1
            continue
        if Py_UNICODE_ISDIGIT(c):
            digits += 1
        if c == 0xA9:
            copyright_sign = True
        if is_separator(c):
            seps += 1
    st.upper = upper
    st.digits = digits
    st.sentences = sentences
    st.commas = commas
    st.seps = seps
    st.copyright_sign = copyright_sign


cdef int text_row(object text, WordTable stopwords, double *out) except -1:
    """``out[0:8]``: the statistics of one text (``stopwords`` None: no stoplist)."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), start, j
    cdef int kind = PyUnicode_KIND(text)
    cdef const void *data = PyUnicode_DATA(text)
    cdef Stats st
    cdef Lowered l
    cdef long stops = 0
    cdef bint copyright_word = False
    if kind == PyUnicode_1BYTE_KIND:
        stats(&st, <const Py_UCS1 *>data, n)
    elif kind == PyUnicode_2BYTE_KIND:
        stats(&st, <const Py_UCS2 *>data, n)
    else:
        stats(&st, <const Py_UCS4 *>data, n)
    if stopwords is not None or not st.copyright_sign:
        lowered = lowered_text(text)
        l = lowered_view(text, lowered)
        if not st.copyright_sign:
            copyright_word = has_copyright(l)
        if stopwords is not None:
            # str.split(): runs of non-whitespace of the lower-cased text.
            start = -1
            for j in range(l.n + 1):
                if j < l.n and not Py_UNICODE_ISSPACE(PyUnicode_READ(l.kind, l.data, j)):
                    if start < 0:
                        start = j
                    continue
                if start < 0:
                    continue
                if stopwords.find_token(l, start, j) >= 0:
                    stops += 1
                start = -1
    out[0] = <double>st.upper
    out[1] = <double>st.digits
    out[2] = <double>st.sentences
    out[3] = 1.0 if n > 0 and is_end_punct(PyUnicode_READ(kind, data, n - 1)) else 0.0
    out[4] = <double>st.commas
    out[5] = <double>stops
    out[6] = 1.0 if st.copyright_sign or copyright_word else 0.0
    out[7] = <double>(st.seps if st.seps < 5 else 5) / 5
    return 0


def text_columns(list texts not None, stopwords, double[:, ::1] out not None):
    """text_columns(texts, stopwords, out): block_features.python_text_columns into out
    (len(texts) x 8 float64)."""
    cdef Py_ssize_t n = len(texts), i
    cdef WordTable table = None
    if out.shape[0] != n or out.shape[1] != N_COLUMNS:
        raise ValueError(f"out: {out.shape[0] * out.shape[1] * 8} bytes, "
                         f"expected {n * N_COLUMNS * 8}")
    if not PyAnySet_Check(stopwords):
        raise TypeError("stopwords must be a set or frozenset")
    if len(stopwords) > 0:
        table = stopword_table(stopwords)
    for i in range(n):
        text = texts[i]
        if not isinstance(text, str):
            raise TypeError(f"texts[{i}] is not a str")
        text_row(text, table, &out[i, 0])


# ---- title_tokens

def title_tokens(list texts not None, wanted, double[:, ::1] out not None):
    """title_tokens(texts, wanted, out): per text, the distinct words of wanted among its \\w+
    tokens (lower-cased), its tokens in wanted, its tokens, into out (len(texts) x 3)."""
    cdef Py_ssize_t n = len(texts), i, j, k, start
    cdef long tokens, inside, distinct
    cdef Lowered l
    cdef WordTable table
    if out.shape[0] != n or out.shape[1] != 3:
        raise ValueError(f"out: {out.shape[0] * out.shape[1] * 8} bytes, expected {n * 3 * 8}")
    if not PyAnySet_Check(wanted):
        raise TypeError("wanted must be a set or frozenset")
    table = WordTable(wanted)
    for i in range(n):
        text = texts[i]
        if not isinstance(text, str):
            raise TypeError(f"texts[{i}] is not a str")
        lowered = lowered_text(text)
        l = lowered_view(text, lowered)
        tokens = inside = distinct = 0
        start = -1
        # \w+ runs of the lower-cased text.
        for j in range(l.n + 1):
            if j < l.n and is_word_char(PyUnicode_READ(l.kind, l.data, j)):
                if start < 0:
                    start = j
                continue
            if start < 0:
                continue
            tokens += 1
            k = table.find_token(l, start, j)
            if k >= 0:
                inside += 1
                if table.seen[k] != i + 1:
                    table.seen[k] = i + 1
                    distinct += 1
            start = -1
        out[i, 0] = <double>distinct
        out[i, 1] = <double>inside
        out[i, 2] = <double>tokens


# ---- tree_distances

def tree_distances(list paths not None, tuple head not None):
    """tree_distances(paths, head) -> list[int]: block_features.tree_distances over the
    blocks' paths and the head block's path.

    For each path (node ids, container first, root last), the steps to the first of its nodes
    on head's path plus that node's steps up from head's container; len(path) + len(head)
    when they share none."""
    cdef Py_ssize_t nh = len(head), n = len(paths), i, k, h, length, distance
    cdef long long node
    cdef long long *ids = <long long *>PyMem_Malloc((nh if nh else 1) * sizeof(long long))
    cdef tuple path
    cdef list out = []
    if ids == NULL:
        raise MemoryError()
    try:
        for k in range(nh):
            ids[k] = head[k]
        for i in range(n):
            if not isinstance(paths[i], tuple):
                raise TypeError(f"paths[{i}] is not a tuple")
            path = paths[i]
            length = len(path)
            distance = length + nh
            for k in range(length):
                node = path[k]
                # the last match, as dict {node: step} over head's path keeps it
                for h in range(nh - 1, -1, -1):
                    if ids[h] == node:
                        distance = k + h
                        break
                if distance != length + nh:
                    break
            out.append(distance)
    finally:
        PyMem_Free(ids)
    return out


# ---- block_fields

def block_fields(list blocks not None, dict container_index not None, Py_ssize_t other,
                 Py_ssize_t width, double[:, ::1] own not None, int64_t[:, ::1] paths not None,
                 int64_t[::1] containers not None, uint64_t[::1] masks not None,
                 int64_t[::1] parents not None):
    """block_fields(blocks, container_index, other, width, own, paths, containers, masks,
    parents) -> bool: block_features.python_block_fields into the arrays; False when a block
    needs the Python reading.

    The numbers ``block_matrix`` reads of each Block, in one pass over the blocks'
    attributes, each as Python reads it: ints converted to float64 as numpy converts them,
    the path cut or padded with its root, the container's column by dict lookup.  A block
    whose fields this does not cover (an empty path, a gap tag that is not a non-empty str)
    makes it answer False."""
    cdef Py_ssize_t n = len(blocks), i, k, length
    cdef bint covered = True, brk, heading
    cdef long long v
    cdef double *row
    cdef PyObject *column
    if (width < 1 or own.shape[0] != n or own.shape[1] != N_OWN or paths.shape[0] != n or
            paths.shape[1] != width or containers.shape[0] != n or masks.shape[0] != n or
            parents.shape[0] != n):
        raise ValueError("block_fields: output sizes do not fit the blocks")
    for i in range(n):
        if not covered:
            break
        b = blocks[i]
        row = &own[i, 0]
        text = b.text
        if not isinstance(text, str):
            covered = False
            break
        row[2] = <double>PyUnicode_GET_LENGTH(text)
        row[0] = b.words
        row[1] = b.link_words
        row[3] = b.depth
        row[4] = b.gap
        # _gap_flags: a br/hr among the gap tags; a tag starting with "h".
        tags = b.gap_tags
        brk = heading = False
        if not PyAnySet_Check(tags):
            covered = False
        elif len(tags) > 0:
            for tag in tags:
                if not isinstance(tag, str) or PyUnicode_GET_LENGTH(tag) == 0:
                    covered = False
                else:
                    if <str>tag == "br" or <str>tag == "hr":
                        brk = True
                    if PyUnicode_READ(PyUnicode_KIND(tag), PyUnicode_DATA(tag), 0) == 'h':
                        heading = True
        row[5] = brk
        row[6] = heading
        # the path from the container up, cut or padded with its root to `width`
        path = b.path
        if not isinstance(path, tuple) or len(<tuple>path) == 0:
            covered = False
            break
        length = len(<tuple>path)
        for k in range(width):
            v = (<tuple>path)[k if k < length else length - 1]
            paths[i, k] = v
            if k == 1:
                parents[i] = v if length > 1 else -1
        if width < 2:
            parents[i] = (<tuple>path)[1] if length > 1 else -1
        tag = b.container_tag
        column = PyDict_GetItemWithError(container_index, tag)
        containers[i] = <object>column if column != NULL else other
        masks[i] = b.mask
    return covered


# ---- text_features: the block matrix's own, window, page and ancestor numbers from the
# blocks' fields and string statistics, one pass per quantity instead of some sixty numpy calls
# on a few hundred values.  Every number is made as numpy makes it: sums of whole numbers
# (exact in any order; each ancestor group still sums in block order), one float64 division
# per ratio (0 where the denominator is 0), the same comparisons.  The logarithms are left to
# numpy: their arguments are written, in the stacked layout python_text_features hands to
# np.log1p, so the same function makes the same bits.

cdef inline Py_ssize_t group_slots(Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t size = 8
    while size < 2 * n:
        size *= 2
    return size


cdef void group_sums(const int64_t *paths, Py_ssize_t n, Py_ssize_t width, Py_ssize_t level,
                     const double **values, int n_values, double **sums, Py_ssize_t *slots,
                     int64_t *keys, Py_ssize_t *group, double *acc) noexcept nogil:
    """For each block, the sum of each of ``values`` over the blocks whose node at ``level``
    is its node (each group summed in block order)."""
    cdef Py_ssize_t size = group_slots(n), groups = 0, i, j, g
    cdef int64_t key
    cdef int v
    cdef double *a
    for j in range(size):
        slots[j] = -1
    for i in range(n):
        key = paths[i * width + level]
        j = <Py_ssize_t>((<uint64_t>key * 0x9E3779B97F4A7C15ULL) >> 32) & (size - 1)
        while slots[j] >= 0 and keys[slots[j]] != key:
            j = (j + 1) & (size - 1)
        if slots[j] < 0:
            slots[j] = groups
            keys[groups] = key
            groups += 1
        group[i] = slots[j]
    for v in range(n_values):
        a = acc + <Py_ssize_t>v * n
        for g in range(groups):
            a[g] = 0.0
        for i in range(n):
            a[group[i]] += values[v][i]
        for i in range(n):
            sums[v][i] = a[group[i]]


cdef inline double ratio(double num, double den) noexcept nogil:
    return num / den if den != 0.0 else 0.0


cdef void fill_text_features(const double *o, const int64_t *paths, const double *t,
                             Py_ssize_t n, Py_ssize_t levels, Py_ssize_t window,
                             double long_min, double long_density, double *m, Py_ssize_t n_out,
                             const int64_t *col, double *lg, double *scratch,
                             Py_ssize_t *slots, Py_ssize_t *group,
                             int64_t *keys) noexcept nogil:
    """text_features' numbers into ``m`` (n x n_out) and ``lg`` (the logarithms' arguments)."""
    cdef Py_ssize_t width = levels + 1, i, l, lo, hi, at
    cdef int v, k
    # scratch: nw links chars depth long word_cum(n+1) long_cum(n+1) ones, 4 sums x levels,
    # 4 accumulators
    cdef double *nw = scratch
    cdef double *links = nw + n
    cdef double *chars = links + n
    cdef double *depth = chars + n
    cdef double *longw = depth + n
    cdef double *word_cum = longw + n
    cdef double *long_cum = word_cum + n + 1
    cdef double *ones = long_cum + n + 1
    cdef double *ups = ones + n
    cdef double *acc = ups + 4 * levels * n
    cdef double total_words = 0.0, total_links = 0.0, total_long = 0.0, max_depth = 0.0
    cdef double page_links, win
    cdef const double *r
    cdef const double *tc
    cdef double *row
    cdef const double *values[4]
    cdef double *sums[4]
    cdef double c[N_C_FEATURES]
    word_cum[0] = long_cum[0] = 0.0
    for i in range(n):
        r = o + N_OWN * i
        nw[i] = r[0]
        links[i] = r[1]
        chars[i] = r[2]
        depth[i] = r[3]
        ones[i] = 1.0
        longw[i] = nw[i] if nw[i] >= long_min and links[i] <= long_density * nw[i] else 0.0
        total_words += nw[i]
        total_links += links[i]
        total_long += longw[i]
        if i == 0 or depth[i] > max_depth:
            max_depth = depth[i]
        word_cum[i + 1] = word_cum[i] + nw[i]
        long_cum[i + 1] = long_cum[i] + longw[i]
    if max_depth == 0.0:
        max_depth = 1.0
    # ancestor groups: words, links, blocks, long words per level
    values[0] = nw
    values[1] = links
    values[2] = ones
    values[3] = longw
    for l in range(levels):
        for v in range(4):
            sums[v] = ups + (<Py_ssize_t>v * levels + l) * n
        group_sums(paths, n, width, l + 1, values, 4, sums, slots, keys, group, acc)
    cdef const double *up_words = ups
    cdef const double *up_links = ups + levels * n
    cdef const double *up_count = ups + 2 * levels * n
    cdef const double *up_long = ups + 3 * levels * n
    page_links = ratio(total_links, total_words)
    for i in range(n):
        tc = t + N_COLUMNS * i  # upper digits sentences ends commas stops copyright seps
        r = o + N_OWN * i
        row = m + i * n_out
        lo = i - window if i - window > 0 else 0
        hi = i + window + 1 if i + window + 1 < n else n
        win = word_cum[hi] - word_cum[lo]
        c[0] = ratio(links[i], nw[i])
        c[1] = ratio(chars[i] - nw[i] + 1, nw[i])
        c[2] = ratio(tc[0], nw[i])
        c[3] = ratio(tc[1], chars[i])
        c[4] = ratio(tc[2], nw[i])
        c[5] = tc[3]
        c[6] = ratio(tc[4], nw[i])
        c[7] = ratio(tc[5], nw[i])
        c[8] = tc[6]
        c[9] = tc[7]
        c[10] = r[5]
        c[11] = r[6]
        c[12] = (depth[i] if depth[i] < 60 else 60.0) / 60
        c[13] = depth[i] / max_depth
        c[14] = <double>i / <double>n
        c[15] = ratio(word_cum[i], total_words)
        c[16] = page_links
        c[17] = ratio(long_cum[hi] - long_cum[lo], win)
        for k in range(N_C_FEATURES):
            row[col[k]] = c[k]
        for l in range(levels):
            at = l * n + i
            row[col[N_C_FEATURES + 3 * l]] = ratio(up_links[at], up_words[at])
            row[col[N_C_FEATURES + 3 * l + 1]] = ratio(nw[i], up_words[at])
            row[col[N_C_FEATURES + 3 * l + 2]] = ratio(up_long[at], total_long)
        lg[0 * n + i] = nw[i]
        lg[1 * n + i] = chars[i]
        lg[2 * n + i] = r[4]
        lg[3 * n + i] = win
        lg[4 * n + i] = total_words
        lg[5 * n + i] = <double>n
        for l in range(levels):
            lg[(6 + l) * n + i] = up_words[l * n + i]
            lg[(6 + levels + l) * n + i] = up_count[l * n + i]


def text_features(const double[:, ::1] own not None, const int64_t[:, ::1] paths not None,
                  const double[:, ::1] text not None, Py_ssize_t levels, Py_ssize_t window,
                  double long_min_words, double long_max_density, double[:, ::1] out not None,
                  const int64_t[::1] columns not None, double[:, ::1] log_args not None):
    """text_features(own, paths, text, levels, window, long_min_words, long_max_density, out,
    columns, log_args): block_features.python_text_features' numbers but the logarithms into
    out's columns, the logarithms' arguments into log_args ((6 + 2 levels) x n)."""
    cdef Py_ssize_t n = own.shape[0], n_out = out.shape[1], c
    cdef Py_ssize_t n_cols = N_C_FEATURES + 3 * levels, n_logs = 6 + 2 * levels
    cdef double *scratch
    cdef Py_ssize_t *slots
    cdef Py_ssize_t *group
    cdef int64_t *keys
    if (levels < 1 or window < 0 or n < 1 or own.shape[1] != N_OWN or
            paths.shape[0] != n or paths.shape[1] != levels + 1 or text.shape[0] != n or
            text.shape[1] != N_COLUMNS or out.shape[0] != n or columns.shape[0] != n_cols or
            log_args.shape[0] != n_logs or log_args.shape[1] != n):
        raise ValueError("text_features: array sizes do not fit")
    for c in range(n_cols):
        if columns[c] < 0 or columns[c] >= n_out:
            raise ValueError("text_features: a column index out of range")
    scratch = <double *>PyMem_Malloc(((8 + 4 * levels + 4) * n + 2) * sizeof(double))
    slots = <Py_ssize_t *>PyMem_Malloc(group_slots(n) * sizeof(Py_ssize_t))
    group = <Py_ssize_t *>PyMem_Malloc(n * sizeof(Py_ssize_t))
    keys = <int64_t *>PyMem_Malloc(n * sizeof(int64_t))
    try:
        if scratch == NULL or slots == NULL or group == NULL or keys == NULL:
            raise MemoryError()
        with nogil:
            fill_text_features(&own[0, 0], &paths[0, 0], &text[0, 0], n, levels, window,
                               long_min_words, long_max_density, &out[0, 0], n_out,
                               &columns[0], &log_args[0, 0], scratch, slots, group, keys)
    finally:
        PyMem_Free(scratch)
        PyMem_Free(slots)
        PyMem_Free(group)
        PyMem_Free(keys)
