# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Native walk of :mod:`corpuscrawl.extract.segment.cdom`: the collapsed-DOM block walk and
the title heuristic's tree lookups, over libxml2's nodes.

``tree_blocks`` walks lxml's tree the way ``cdom.python_tree_blocks`` walks it with
``lxml.etree.iterwalk(events=("start", "end"))`` and returns the same ``Block`` objects.  It
reads the nodes through lxml's public Cython API (``lxml/includes/etreepublic.pxd``: the
element's ``_c_node``, ``textOf``, ``tailOf``, ``attributeValueFromNsName``) and libxml2's
public node struct (``lxml/includes/tree.pxd``), so the strings are those ``el.text``,
``el.tail`` and ``el.get(...)`` give.  Comments and processing instructions are skipped with
their tails, as iterwalk does.  In raw mode (``removed`` given) the walk reads the page's
parsed tree as if it were ``Page.clean_tree`` (comments, PIs and the ``removed`` elements
taken out, their tails joined to the text before them), so ``cdom.page_blocks`` needs no
cleaned copy.

Everything that decides a tag's role (dropped, inline, break, ancestor bit), the class/id
keyword alternatives and the hidden-style test are passed in from ``cdom.py``, so the rules
live in one place.  A tree this walk does not reproduce exactly (entity references,
namespaced elements, an empty tag name, masks beyond 64 bits) gives None: the caller then
runs the Python walk (``tests/test_cdom_walk.py`` compares the two).
"""

cimport cython
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.unicode cimport PyUnicode_DecodeUTF8
from cpython.ref cimport Py_INCREF, Py_XDECREF, PyObject
from libc.stdint cimport uint64_t
from libc.string cimport memset, strcmp, strlen

from corpuscrawl.extract._lxml_nodes cimport (cetree, compiled_lxml_version, const_xmlChar,
                                              has_name, next_in_subtree, tree, xmlNode)

cetree.import_lxml__etree()

#: The interface ``cdom.py`` calls (``cdom.CDOM_API``): raise it with any change of it.
API = 2
#: The lxml and libxml2 releases this module was compiled against (``cdom.py`` uses it only
#: with the same releases).
LXML_VERSION = compiled_lxml_version()
LIBXML_VERSION = tree.LIBXML_VERSION

cdef enum:
    MAX_KEYWORDS = 128
    MAX_LITERAL = 32

cdef extern from "Python.h":
    bint PyUnicode_IS_ASCII(object)


# ---- class/id keywords: cdom.CLASS_KEYWORDS as the ordered literal alternatives of
# cdom.keyword_alternatives(); the regex tries them in order at each position and the first
# that matches sets its group's bit, scanning on after it.

cdef struct Keyword:
    int bit
    bint before, after      # no [a-z] right before / right after the literal
    Py_ssize_t len
    Py_UCS4 lit[MAX_LITERAL]
    int next                # next alternative with the same first character, -1 at the end

cdef struct Keywords:
    Keyword items[MAX_KEYWORDS]
    int n
    int first[128]          # first alternative starting with each ASCII character, -1: none


#: The last keyword table parsed and its parsed form: cdom.py passes the same tuple on every
#: call, so it is parsed once.
cdef object parsed_table = None
cdef Keywords parsed_keywords


cdef int keywords_of_table(object table, Keywords *k) except -1:
    """``table`` parsed into ``k`` (from the cache when it is the last tuple parsed)."""
    global parsed_table, parsed_keywords
    if table is parsed_table:
        k[0] = parsed_keywords
        return 0
    keywords_parse(table, k)
    if isinstance(table, tuple):
        parsed_keywords = k[0]
        parsed_table = table
    return 0


cdef int keywords_parse(object table, Keywords *k) except -1:
    cdef int last[128]
    cdef Py_ssize_t i, j
    cdef int c
    cdef Keyword *kw
    items = list(table)
    if len(items) > MAX_KEYWORDS:
        raise ValueError("at most 128 keyword alternatives")
    for c in range(128):
        k.first[c] = -1
        last[c] = -1
    k.n = 0
    for i, item in enumerate(items):
        if not isinstance(item, tuple) or len(item) != 4:
            raise TypeError("a keyword is (bit, literal, before, after)")
        bit, literal, before, after = item
        if not isinstance(literal, str):
            raise TypeError("a keyword literal is a str")
        kw = &k.items[i]
        kw.bit = bit
        if not 1 <= len(literal) < MAX_LITERAL or not 0 <= kw.bit <= 63:
            raise ValueError("keyword literal of 1-31 characters, bit 0-63")
        if not literal.isascii():
            raise ValueError("keyword literals are ASCII")
        for j in range(len(literal)):
            kw.lit[j] = literal[j]
        kw.len = len(literal)
        kw.before = bool(before)
        kw.after = bool(after)
        kw.next = -1
        c = <int>kw.lit[0]
        if last[c] < 0:
            k.first[c] = <int>i
        else:
            k.items[last[c]].next = <int>i
        last[c] = <int>i
        k.n += 1
    return 0


cdef inline Py_UCS4 ascii_lower(Py_UCS4 c) noexcept:
    cdef unsigned int u = c
    return u + 32 if 65 <= u <= 90 else u


cdef inline bint is_lower_ascii(Py_UCS4 c) noexcept:
    return c >= u'a' and c <= u'z'


cdef uint64_t keywords_scan(const Keywords *k, const Py_UCS4 *s, Py_ssize_t n) noexcept:
    """Bits of the keyword groups the regex's scan over s (lower-cased) finds."""
    cdef uint64_t bits = 0
    cdef Py_ssize_t i = 0, j, step
    cdef Py_UCS4 c
    cdef int a
    cdef const Keyword *kw
    while i < n:
        c = s[i]
        step = 1
        if c < 128:
            a = k.first[c]
            while a >= 0:
                kw = &k.items[a]
                a = kw.next
                if i + kw.len > n:
                    continue
                if kw.before and i > 0 and is_lower_ascii(s[i - 1]):
                    continue
                j = 1
                while j < kw.len and s[i + j] == kw.lit[j]:
                    j += 1
                if j < kw.len:
                    continue
                if kw.after and i + kw.len < n and is_lower_ascii(s[i + kw.len]):
                    continue
                bits |= (<uint64_t>1) << kw.bit
                step = kw.len
                break
        i += step
    return bits


cdef int keywords_of_pair(const Keywords *k, str a, str b, uint64_t *bits) except -1:
    """keywords_scan over ``a + " " + b`` lower-cased as str.lower() does."""
    cdef Py_UCS4 stack_buf[256]
    cdef Py_UCS4 *buf = stack_buf
    cdef Py_UCS4 c
    cdef Py_ssize_t i, n, na = len(a), nb = len(b)
    cdef str lower
    if PyUnicode_IS_ASCII(a) and PyUnicode_IS_ASCII(b):
        n = na + 1 + nb
        if n > 256:
            buf = <Py_UCS4 *>PyMem_Malloc(n * sizeof(Py_UCS4))
            if buf == NULL:
                raise MemoryError()
        for i in range(na):
            buf[i] = ascii_lower(a[i])
        buf[na] = u' '
        for i in range(nb):
            buf[na + 1 + i] = ascii_lower(b[i])
    else:
        lower = f"{a} {b}".lower()
        n = len(lower)
        if n > 256:
            buf = <Py_UCS4 *>PyMem_Malloc(n * sizeof(Py_UCS4))
            if buf == NULL:
                raise MemoryError()
        for i in range(n):
            buf[i] = lower[i]
    bits[0] = keywords_scan(k, buf, n)
    if buf != stack_buf:
        PyMem_Free(buf)
    return 0


def keyword_bits(str cls, str ident, keywords):
    """keyword_bits(class, id, keywords) -> int: the class/id keyword bits the walk gives an
    element with these attribute values (``cdom._value_bits`` of the lower-cased pair)."""
    cdef Keywords k
    cdef uint64_t bits
    keywords_parse(keywords, &k)
    keywords_of_pair(&k, cls, ident, &bits)
    return bits


# ---- text pieces

cdef inline bint is_cjk(Py_UCS4 c) noexcept:
    return (0x3040 <= c <= 0x30ff) or (0x3400 <= c <= 0x9fff) or (0xf900 <= c <= 0xfaff)


cdef long word_count(str text):
    """cdom.word_count: whitespace tokens (str.split()) plus one per two kana/ideographs."""
    cdef long tokens = 0, cjk = 0
    cdef bint in_token = False
    cdef bint ascii = PyUnicode_IS_ASCII(text)
    cdef Py_UCS4 c
    for c in text:
        if c.isspace():
            in_token = False
        else:
            if not in_token:
                tokens += 1
            in_token = True
            if not ascii and is_cjk(c):
                cjk += 1
    return tokens + cjk // 2


cdef long cjk_words(str text):
    cdef long cjk = 0
    cdef Py_UCS4 c
    if PyUnicode_IS_ASCII(text):
        return 0
    for c in text:
        if is_cjk(c):
            cjk += 1
    return cjk // 2


cdef bint is_space_only(str text):
    cdef Py_UCS4 c
    for c in text:
        if not c.isspace():
            return False
    return len(text) > 0


# ---- the walk

@cython.final
cdef class TagInfo:
    """What the walk needs to know about one tag name, computed once per name and call."""
    cdef const_xmlChar *name     # libxml2's name (the key)
    cdef str tag                 # lower-cased tag
    cdef bint dropped, inline_, counted_gap, is_a, removed
    cdef uint64_t bit


cdef struct Frame:
    xmlNode *node
    xmlNode *child      # next child to visit
    long id
    PyObject *info      # a TagInfo, kept alive by Walk.infos
    uint64_t mask
    bint inline_, in_link
    PyObject *run       # raw mode: the text run not yet added (a str or None; NULL: none)


cdef uint64_t hash_name(const_xmlChar *s) noexcept:
    cdef uint64_t h = 1469598103934665603ULL
    while s[0]:
        h = (h ^ s[0]) * 1099511628211ULL
        s += 1
    return h


@cython.final
cdef class Walk:
    """One call of :func:`tree_blocks`: its rules, its stack of open elements and the
    blocks so far."""
    cdef object block_type, dropped, inline_tags, breaks, hidden_style, removed
    cdef dict tag_bit
    cdef bint raw, unsupported
    cdef Keywords keywords
    cdef list blocks, pieces, infos
    cdef set gap_tags
    cdef Frame *stack
    cdef Py_ssize_t depth, capacity
    cdef long link_words, gap, next_id
    cdef PyObject **table        # open addressing over TagInfo, by name
    cdef Py_ssize_t table_size, table_used

    def __dealloc__(self):
        cdef Py_ssize_t i
        for i in range(self.depth):
            Py_XDECREF(self.stack[i].run)
        PyMem_Free(self.stack)
        PyMem_Free(self.table)

    cdef TagInfo fill(self, const_xmlChar *name):
        """The role of one tag name, as cdom.python_tree_blocks decides it."""
        cdef TagInfo t = TagInfo()
        raw = PyUnicode_DecodeUTF8(<const char *>name, strlen(<const char *>name), NULL)
        t.removed = self.raw and raw in self.removed
        t.name = name
        t.tag = raw.lower()
        if not t.tag:  # the Python walk fails on it: let it
            self.unsupported = True
            return t
        t.dropped = t.tag in self.dropped
        t.inline_ = t.tag in self.inline_tags
        t.counted_gap = t.tag in self.breaks or (t.tag[0] == u"h" and t.tag[1:].isdigit())
        t.is_a = t.tag == "a"
        t.bit = 0
        bit = self.tag_bit.get(t.tag)
        if bit is not None:
            try:
                t.bit = bit
            except (OverflowError, TypeError):
                self.unsupported = True
        return t

    cdef TagInfo info(self, const_xmlChar *name):
        cdef Py_ssize_t size, i
        cdef uint64_t j
        cdef PyObject **items
        cdef TagInfo t
        if self.table_used * 2 >= self.table_size:
            size = self.table_size * 2 if self.table_size else 64
            items = <PyObject **>PyMem_Malloc(size * sizeof(PyObject *))
            if items == NULL:
                raise MemoryError()
            memset(items, 0, size * sizeof(PyObject *))
            for i in range(self.table_size):
                if self.table[i] == NULL:
                    continue
                j = hash_name((<TagInfo>self.table[i]).name) & (size - 1)
                while items[j] != NULL:
                    j = (j + 1) & (size - 1)
                items[j] = self.table[i]
            PyMem_Free(self.table)
            self.table = items
            self.table_size = size
        j = hash_name(name) & (self.table_size - 1)
        while self.table[j] != NULL:
            t = <TagInfo>self.table[j]
            if t.name == name or strcmp(<const char *>t.name, <const char *>name) == 0:
                return t
            j = (j + 1) & (self.table_size - 1)
        t = self.fill(name)
        self.infos.append(t)
        self.table[j] = <PyObject *>t
        self.table_used += 1
        return t

    cdef int add_text(self, object text, bint in_link) except -1:
        """cdom.python_tree_blocks' add(): one text piece of the current block."""
        if text is None or not text:
            return 0
        if is_space_only(text):
            if self.pieces:
                self.pieces.append(" ")
        else:
            self.pieces.append(text)
            if in_link:
                self.link_words += word_count(text)
        return 0

    cdef int flush(self) except -1:
        """cdom.python_tree_blocks' flush(): the pieces so far become a block."""
        cdef Py_ssize_t i, n_path = 0
        cdef Frame *container = NULL
        cdef long words
        cdef str joined, text
        cdef list parts
        cdef tuple path
        if self.pieces:
            if self.depth == 0:  # the Python walk fails here: let it
                self.unsupported = True
                return 0
            joined = self.pieces[0] if len(self.pieces) == 1 else "".join(self.pieces)
            parts = joined.split()
            if parts:
                text = " ".join(parts)
                words = len(parts) + cjk_words(text)
                for i in range(self.depth - 1, -1, -1):
                    if not self.stack[i].inline_:
                        if container == NULL:
                            container = &self.stack[i]
                        n_path += 1
                if container == NULL:
                    container = &self.stack[self.depth - 1]
                path = tuple([self.stack[i].id for i in range(self.depth - 1, -1, -1)
                              if not self.stack[i].inline_])
                self.blocks.append(self.block_type(
                    text, words, min(self.link_words, words), (<TagInfo>container.info).tag,
                    path, self.depth, self.stack[self.depth - 1].mask, self.gap,
                    frozenset(self.gap_tags)))
                self.gap_tags.clear()
                self.gap = 0
            del self.pieces[:]
        self.link_words = 0
        return 0

    cdef xmlNode *next_element(self, xmlNode *node) noexcept:
        """Element children as iterwalk visits them (comments and PIs skipped; in raw mode
        they are returned too: their tails join the text run); an entity reference marks
        the tree unsupported."""
        while node != NULL:
            if node.type == tree.XML_ELEMENT_NODE:
                return node
            if self.raw and (node.type == tree.XML_COMMENT_NODE or
                             node.type == tree.XML_PI_NODE):
                return node
            if node.type == tree.XML_ENTITY_REF_NODE:
                self.unsupported = True
                return NULL
            node = node.next
        return NULL

    cdef bint hidden(self, xmlNode *node) except -1:
        """cdom._hidden: a style hiding the element, or a ``hidden`` attribute."""
        style = cetree.attributeValueFromNsName(node, NULL, <const_xmlChar *>"style")
        if style is not None and style and self.hidden_style(style):
            return True
        return cetree.attributeValueFromNsName(node, NULL, <const_xmlChar *>"hidden") \
            is not None

    cdef uint64_t class_bits(self, xmlNode *node) except? 0xffffffffffffffff:
        """cdom.class_bits: keyword bits of the class and id attributes."""
        cdef uint64_t bits = 0
        cls = cetree.attributeValueFromNsName(node, NULL, <const_xmlChar *>"class")
        ident = cetree.attributeValueFromNsName(node, NULL, <const_xmlChar *>"id")
        has_cls = cls is not None and len(cls) > 0
        has_id = ident is not None and len(ident) > 0
        if has_cls or has_id:
            keywords_of_pair(&self.keywords, cls if has_cls else "", ident if has_id else "",
                             &bits)
        return bits

    cdef bint skipped(self, xmlNode *node, TagInfo info) except -1:
        """Whether the element is skipped (dropped or hidden)."""
        return info.dropped or self.hidden(node)

    cdef int run_append(self, Frame *f, object text) except -1:
        """Raw mode: Page.clean_tree removes comments, PIs and the ``removed`` elements and
        appends each one's tail to the previous kept sibling's tail or to the parent's text;
        the text between two kept nodes is then one string: ``text`` (a str or None) joins
        the frame's run."""
        if f.run == NULL:
            Py_INCREF(text)
            f.run = <PyObject *>text
            return 0
        if text:
            run = <object>f.run
            joined = text if run is None else run + text
            Py_INCREF(joined)
            Py_XDECREF(f.run)
            f.run = <PyObject *>joined
        return 0

    cdef int run_flush(self, Frame *f) except -1:
        """The frame's run so far becomes a text piece of the current block."""
        if f.run == NULL:
            return 0
        run = <object>f.run
        Py_XDECREF(f.run)
        f.run = NULL
        return self.add_text(run, f.in_link)

    cdef int push(self, xmlNode *node, TagInfo info) except -1:
        cdef Frame *parent
        cdef Frame *f
        cdef Frame *stack
        cdef Py_ssize_t capacity
        cdef uint64_t bits
        if not info.inline_:
            self.flush()
            self.gap += 1
            if info.counted_gap:
                self.gap_tags.add(info.tag)
        bits = self.class_bits(node)
        if self.depth == self.capacity:
            capacity = self.capacity * 2 if self.capacity else 64
            stack = <Frame *>PyMem_Realloc(self.stack, capacity * sizeof(Frame))
            if stack == NULL:
                raise MemoryError()
            self.stack = stack
            self.capacity = capacity
        parent = &self.stack[self.depth - 1] if self.depth else NULL
        f = &self.stack[self.depth]
        self.depth += 1
        f.node = node
        f.child = NULL
        f.id = self.next_id
        self.next_id += 1
        f.info = <PyObject *>info
        f.mask = (parent.mask if parent != NULL else 0) | info.bit | bits
        f.inline_ = info.inline_
        f.in_link = (parent.in_link if parent != NULL else False) or info.is_a
        f.run = NULL
        if self.raw:
            self.run_append(f, cetree.textOf(node))
        else:
            self.add_text(cetree.textOf(node), f.in_link)
        f.child = self.next_element(node.children)
        return 0

    cdef TagInfo element_info(self, xmlNode *node):
        """An element lxml names without a namespace (None, and the tree unsupported,
        otherwise)."""
        if (node.ns != NULL and node.ns.href != NULL) or node.name == NULL:
            self.unsupported = True
            return None
        return self.info(node.name)

    cdef int walk(self, xmlNode *root) except -1:
        cdef Frame *top
        cdef xmlNode *child
        cdef xmlNode *node
        cdef TagInfo info = self.element_info(root)
        if info is None or self.unsupported:
            return 0
        if self.skipped(root, info):
            return 0
        self.push(root, info)
        while self.depth > 0 and not self.unsupported:
            top = &self.stack[self.depth - 1]
            child = top.child
            if child != NULL:
                top.child = self.next_element(child.next)
                if child.type != tree.XML_ELEMENT_NODE:  # raw mode: a comment or PI
                    self.run_append(top, cetree.tailOf(child))
                    continue
                info = self.element_info(child)
                if info is None or self.unsupported:
                    return 0
                if info.removed:
                    self.run_append(top, cetree.tailOf(child))
                    continue
                if self.raw:
                    self.run_flush(top)
                if self.skipped(child, info):
                    if self.raw:
                        self.run_append(top, cetree.tailOf(child))
                    else:
                        self.add_text(cetree.tailOf(child), top.in_link)
                else:
                    self.push(child, info)
                continue
            # the end event of top
            if self.raw:
                self.run_flush(top)
            if not top.inline_:
                self.flush()
                self.gap += 1
            node = top.node
            self.depth -= 1
            if self.depth > 0:
                if self.raw:
                    self.run_append(&self.stack[self.depth - 1], cetree.tailOf(node))
                else:
                    self.add_text(cetree.tailOf(node), self.stack[self.depth - 1].in_link)
        if self.unsupported:
            return 0
        self.flush()
        return 0


def tree_blocks(root, block_type, dropped, inline_tags, breaks, dict tag_bit not None, keywords,
                hidden_style, removed=None):
    """tree_blocks(root, Block, dropped, inline, breaks, tag_bit, keywords, hidden_style,
    removed=None) -> list[Block] | None: cdom.tree_blocks' block sequence under root, or None
    when the tree needs the Python walk.  With ``removed`` (the tags Page.clean_tree removes),
    root is in the page's raw tree and the walk gives the blocks of its cleaned copy."""
    cdef Walk w = Walk()
    w.block_type, w.dropped, w.inline_tags, w.breaks = block_type, dropped, inline_tags, breaks
    w.tag_bit, w.hidden_style, w.removed = tag_bit, hidden_style, removed
    w.raw = removed is not None
    keywords_of_table(keywords, &w.keywords)
    cdef cetree._Element element = cetree.rootNodeOrRaise(root)
    cdef xmlNode *node = element._c_node
    if node == NULL or node.type != tree.XML_ELEMENT_NODE:
        return None
    w.blocks, w.pieces, w.infos, w.gap_tags = [], [], [], set()
    w.walk(node)
    return None if w.unsupported else w.blocks


# ---- Lookups for the headline (extract/meta/title.py): what ``root.iter(tag)``, an XPath
# ``//meta[@attr="value"]/@content`` and ``element.text_content()`` give, read in one walk
# without an element proxy per visited element.  A tree they do not read as lxml does (a
# namespaced element, an entity reference) gives None: the caller then asks lxml.

cdef int element_named(xmlNode *node, const char *name) noexcept:
    """1: an element named ``name`` without a namespace; 0: another node; -1: a node lxml
    would name or read otherwise (namespaced element, entity reference)."""
    if node.type == tree.XML_ENTITY_REF_NODE:
        return -1
    if node.type != tree.XML_ELEMENT_NODE:
        return 0
    if node.ns != NULL and node.ns.href != NULL:
        return -1
    return has_name(node, name)


cdef object string_value(xmlNode *element):
    """libxml2's string value of an element (what XPath string() and lxml's text_content()
    give: its descendant text and CDATA nodes' content in document order) as str; None when
    the subtree holds an entity reference."""
    cdef xmlNode *n = element
    parts = []
    while n != NULL:
        if n.type == tree.XML_ENTITY_REF_NODE:
            return None
        if (n.type == tree.XML_TEXT_NODE or n.type == tree.XML_CDATA_SECTION_NODE) and \
                n.content != NULL:
            parts.append(<bytes><const char *>n.content)
        n = next_in_subtree(n, element)
    return b"".join(parts).decode("utf-8")


cdef xmlNode *element_node(cetree._Element holder) except NULL:
    cdef xmlNode *node = holder._c_node
    if node == NULL or node.type != tree.XML_ELEMENT_NODE:
        raise ValueError("an element is needed")
    return node


def first_text(root, str tag):
    """first_text(root, tag) -> (str | None,) | None: the text_content() of the first element
    ``tag`` in root.iter(tag) order, wrapped in a 1-tuple ((None,): none); None when the tree
    needs lxml (a namespaced element or an entity reference on the way)."""
    cdef cetree._Element holder = cetree.rootNodeOrRaise(root)
    cdef xmlNode *top = element_node(holder)
    cdef xmlNode *n = top
    cdef bytes name = tag.encode("utf-8")
    cdef int named
    while n != NULL:
        named = element_named(n, name)
        if named < 0:
            return None
        if named:
            text = string_value(n)
            return None if text is None else (text,)
        n = next_in_subtree(n, top)
    return (None,)


cdef bint within(xmlNode *node, xmlNode *top) noexcept:
    """Whether ``node`` is ``top`` or below it."""
    while node != NULL:
        if node == top:
            return True
        node = node.parent
    return False


cdef object document_walk(xmlNode *top, pairs, xmlNode *links_top, accept):
    """One walk over the whole document of ``top``: per (attribute, value) pair the content
    of each <meta attribute=value> and, when ``links_top`` is given, the text_content() of
    each <a> under it whose href ``accept`` takes.  (metas tuple, links list or None), or
    None when the tree needs lxml."""
    cdef int named
    cdef xmlNode *start
    cdef xmlNode *subtree
    cdef xmlNode *n
    cdef Py_ssize_t i
    cdef bytes attr
    checked, values = [], []
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2 or not isinstance(pair[0], str) \
                or not isinstance(pair[1], str):
            raise TypeError("a pair is (attribute, value)")
        checked.append((<str>pair[0]).encode("utf-8"))
        values.append(pair[1])
    if len(checked) > 16:
        raise ValueError("at most 16 (attribute, value) pairs")
    metas = tuple([[] for _ in checked])
    links = [] if links_top != NULL else None
    # ``//meta`` searches the whole document: every top-level node's subtree, in order.
    start = top
    if top.doc != NULL and top.doc.children != NULL:
        start = top.doc.children
    else:
        while start.prev != NULL:
            start = start.prev
    subtree = n = start
    while n != NULL:
        named = element_named(n, "meta")
        if named < 0:
            return None
        if named:
            content = None
            have_content = False
            for i in range(len(checked)):
                attr = checked[i]
                have = cetree.attributeValueFromNsName(n, NULL, tree._xcstr(attr))
                if have is None or have != values[i]:
                    continue
                if not have_content:
                    content = cetree.attributeValueFromNsName(n, NULL,
                                                              <const_xmlChar *>"content")
                    have_content = True
                if content is not None:
                    (<list>metas[i]).append(content)
        elif links_top != NULL and element_named(n, "a") > 0 and within(n, links_top):
            href = cetree.attributeValueFromNsName(n, NULL, <const_xmlChar *>"href")
            if accept("" if href is None else href):
                text = string_value(n)
                if text is None:
                    return None
                links.append(text)
        n = next_in_subtree(n, subtree)
        if n == NULL and subtree.next != NULL:
            subtree = n = subtree.next
    return metas, links


def meta_contents(root, pairs):
    """meta_contents(root, pairs) -> tuple[list[str], ...] | None: per (attribute, value) pair,
    ``root.xpath('//meta[@attribute="value"]/@content')`` (document order); None when the
    tree needs lxml."""
    cdef cetree._Element holder = cetree.rootNodeOrRaise(root)
    found = document_walk(element_node(holder), pairs, NULL, None)
    return None if found is None else found[0]


def metas_and_links(root, pairs, links_root, accept):
    """metas_and_links(root, pairs, links_root, accept) -> (metas, links) | None: what
    meta_contents(root, pairs) gives and the text_content() of each element of
    links_root.iter('a') for which accept(a.get('href') or '') is true, in one walk over the
    document (links_root in root's document); None when the tree needs lxml."""
    cdef cetree._Element holder = cetree.rootNodeOrRaise(root)
    cdef xmlNode *top = element_node(holder)
    cdef cetree._Element links_holder = cetree.rootNodeOrRaise(links_root)
    cdef xmlNode *links_top = element_node(links_holder)
    if links_top.doc != top.doc:
        return None
    return document_walk(top, pairs, links_top, accept)
