# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Native walk of :mod:`corpuscrawl.extract.page_typing.page_type_features`: the counts of
``_Walk.visit`` read off libxml2's nodes, without an element proxy per visited element.

``body_counts`` visits the body the way ``_Walk.visit`` visits it (``for child in el``
over elements, comments and processing instructions; text of ``el.text`` and each child's
``el.tail``; no text nor children below a skipped tag) and returns the same counts.  It
reads the nodes through lxml's public Cython API (``lxml/includes/etreepublic.pxd``:
``textOf``, ``tailOf``, ``attributeValueFromNsName``) and libxml2's node struct, so the
strings are those ``el.text``, ``el.tail`` and ``el.get(...)`` give.  Words are counted as
``re.findall(r"\\w+", text)`` counts them (a run of characters for which ``str.isalnum()``
holds, or ``_``); the price pattern runs (in Python) only on a text holding a decimal digit,
which every match has.  A tree this walk does not read as lxml does (a namespaced element,
an entity reference) gives None: the caller then runs the Python walk
(``tests/test_page_type_walk.py`` compares the two).  ``document_parts`` reads, in one
walk of the whole tree, the head's tags and the structured-data strings the features parse.
"""

cimport cython
from cpython.mem cimport PyMem_Free, PyMem_Realloc
from cpython.unicode cimport Py_UNICODE_ISALNUM, Py_UNICODE_ISDECIMAL, Py_UNICODE_ISSPACE

from corpuscrawl.extract._lxml_nodes cimport (cetree, compiled_lxml_version, const_xmlChar,
                                              has_name, next_in_subtree, tree, xmlNode)

cetree.import_lxml__etree()

#: The interface ``page_type_features.py`` calls: raise it with any change of it.
API = 1
#: The lxml and libxml2 releases this module was compiled against (used only with the same).
LXML_VERSION = compiled_lxml_version()
LIBXML_VERSION = tree.LIBXML_VERSION

cdef enum:
    MAX_SHARE = 62
    MAX_FAMILIES = 62


cdef struct Item:
    xmlNode *node
    unsigned long long inside


cdef inline bint is_word_char(Py_UCS4 c) noexcept:
    if c < 128:
        return (u'a' <= c <= u'z') or (u'A' <= c <= u'Z') or (u'0' <= c <= u'9') or c == u'_'
    return Py_UNICODE_ISALNUM(c)


cdef inline bint is_decimal(Py_UCS4 c) noexcept:
    if c < 128:
        return u'0' <= c <= u'9'
    return Py_UNICODE_ISDECIMAL(c)


cdef inline xmlNode *text_node(xmlNode *node) noexcept:
    """lxml's ``_textNodeOrSkip``: ``node`` when it is a text or CDATA node, the next such
    node past XInclude markers, else NULL."""
    while node != NULL:
        if node.type == tree.XML_TEXT_NODE or node.type == tree.XML_CDATA_SECTION_NODE:
            return node
        if node.type == tree.XML_XINCLUDE_START or node.type == tree.XML_XINCLUDE_END:
            node = node.next
            continue
        return NULL
    return NULL


cdef inline Py_UCS4 next_code_point(const unsigned char *s, Py_ssize_t *at) noexcept:
    """The code point of the UTF-8 sequence at ``s[at]`` (libxml2's text is UTF-8); ``at``
    moves past it.  A broken sequence reads as one U+FFFD per byte."""
    cdef Py_ssize_t i = at[0]
    cdef unsigned int c = s[i], n, k, cp
    if c < 0x80:
        at[0] = i + 1
        return <Py_UCS4>c
    if 0xC2 <= c < 0xE0:
        n = 1
        cp = c & 0x1F
    elif 0xE0 <= c < 0xF0:
        n = 2
        cp = c & 0x0F
    elif 0xF0 <= c < 0xF5:
        n = 3
        cp = c & 0x07
    else:
        at[0] = i + 1
        return <Py_UCS4>0xFFFD
    for k in range(1, n + 1):
        if (s[i + k] & 0xC0) != 0x80:
            at[0] = i + 1
            return <Py_UCS4>0xFFFD
        cp = (cp << 6) | (s[i + k] & 0x3F)
    at[0] = i + n + 1
    return <Py_UCS4>cp


@cython.final
cdef class Counts:
    """What one walk gathers (the fields of ``_Walk``)."""
    cdef dict tags
    cdef dict seen                          # class/id value -> family bits, this walk
    cdef dict word_bits
    cdef tuple family_names
    cdef long long[MAX_FAMILIES] families_n
    cdef long long[MAX_SHARE + 1] text_in   # [0]: all words; [1 + i]: inside share tag i
    cdef long long longest_p
    cdef long long prices
    cdef object families
    cdef object price_findall

    cdef long long text(self, xmlNode *node, unsigned long long inside) except -1:
        """``_Walk.text`` of the text lxml reads from ``node`` on (``el.text`` from the
        element's first child, ``el.tail`` from its next sibling: the run of text and CDATA
        nodes there): its words, counted for the page and each share tag of ``inside``,
        and its prices (the text is made a str only when it holds a decimal digit)."""
        cdef xmlNode *first = text_node(node)
        cdef xmlNode *n = first
        cdef const unsigned char *c
        cdef Py_ssize_t i
        cdef long long words = 0
        cdef bint in_word = False, digit = False
        cdef Py_UCS4 cp
        cdef int bit
        while n != NULL:
            c = <const unsigned char *>n.content
            if c != NULL:
                i = 0
                while c[i]:
                    cp = next_code_point(c, &i)
                    if is_word_char(cp):
                        if not in_word:
                            words += 1
                            in_word = True
                        if not digit and is_decimal(cp):
                            digit = True
                    else:
                        in_word = False
            n = text_node(n.next)
        if words == 0:
            return 0
        self.text_in[0] += words
        bit = 0
        while inside:
            if inside & 1:
                self.text_in[1 + bit] += words
            inside >>= 1
            bit += 1
        if digit:
            parts = []
            n = first
            while n != NULL:
                if n.content != NULL:
                    parts.append(<bytes><const char *>n.content)
                n = text_node(n.next)
            self.prices += len(self.price_findall(b"".join(parts).decode("utf-8").strip()))
        return words

    cdef unsigned long long value_bits(self, str value) except? 0xffffffffffffffff:
        """The family bits of a ``class id`` value: by ``families(value)`` (Python) when it
        is not ASCII, else by its tokens (lower-cased runs between white space and ``_``,
        and the runs of letters and digits inside them) looked up in ``word_bits``."""
        cdef Py_ssize_t i = 0, start, run, n = len(value)
        cdef unsigned long long bits = 0
        cdef Py_UCS4 c
        if not value.isascii():
            for family in self.families(value):
                bits |= (<unsigned long long>1) << <int>self.family_names.index(family)
            return bits
        lower = value.lower()
        while i < n:
            c = lower[i]
            if c == u'_' or Py_UNICODE_ISSPACE(c):
                i += 1
                continue
            start = i
            run = -1
            while i < n:
                c = lower[i]
                if c == u'_' or Py_UNICODE_ISSPACE(c):
                    break
                if (u'a' <= c <= u'z') or (u'0' <= c <= u'9'):
                    if run < 0:
                        run = i
                elif run >= 0:
                    bits |= self.lookup(lower[run:i])
                    run = -1
                i += 1
            if run > start:
                bits |= self.lookup(lower[run:i])
            bits |= self.lookup(lower[start:i])
        return bits

    cdef inline unsigned long long lookup(self, str token) except? 0xffffffffffffffff:
        found = self.word_bits.get(token)
        return 0 if found is None else <unsigned long long>found

    cdef int classes_of(self, xmlNode *node) except -1:
        """The class-word families of the element's ``class`` and ``id``, counted."""
        cdef unsigned long long bits
        cdef int bit
        cls = cetree.attributeValueFromNsName(node, NULL, <const_xmlChar *>"class")
        ident = cetree.attributeValueFromNsName(node, NULL, <const_xmlChar *>"id")
        if not (cls or ident):
            return 0
        value = f"{cls or ''} {ident or ''}"
        found = self.seen.get(value)
        if found is None:
            bits = self.value_bits(value)
            self.seen[value] = bits
        else:
            bits = <unsigned long long>found
        bit = 0
        while bits:
            if bits & 1:
                self.families_n[bit] += 1
            bits >>= 1
            bit += 1
        return 0


def body_counts(root, dict share_index, frozenset skip, tuple family_names, dict word_bits,
                families, price_findall):
    """body_counts(root, share_index, skip, family_names, word_bits, families,
    price_findall) -> tuple | None: ``(tags, classes, text_in, longest_p, prices)`` of
    ``root``'s subtree as ``_Walk.visit`` counts them — ``tags`` and ``classes`` dicts of
    counts, ``text_in`` the words of the page then inside each share tag (``share_index``:
    tag -> position, at most 62), the longest ``<p>``'s own text in words, the prices.
    ``word_bits`` maps each class word to the bits of its families (bit i:
    ``family_names[i]``, at most 62); ``families(value)`` gives the family
    names of a ``class id`` value that is not ASCII; ``price_findall(text)`` the prices of a
    text.  None when the tree needs lxml (a namespaced element or an entity reference)."""
    cdef cetree._Element holder = cetree.rootNodeOrRaise(root)
    cdef xmlNode *top = holder._c_node
    cdef xmlNode *node
    cdef xmlNode *child
    cdef Item *stack = NULL
    cdef Item *grown
    cdef Py_ssize_t depth = 0, capacity = 0, i
    cdef unsigned long long inside, bit
    cdef long long words
    cdef Counts counts = Counts()
    cdef str tag
    if len(share_index) > MAX_SHARE or len(family_names) > MAX_FAMILIES:
        raise ValueError("at most 62 share tags and 62 families")
    counts.tags = {}
    counts.seen = {}
    counts.word_bits = word_bits
    counts.family_names = family_names
    for i in range(MAX_FAMILIES):
        counts.families_n[i] = 0
    for i in range(MAX_SHARE + 1):
        counts.text_in[i] = 0
    counts.longest_p = 0
    counts.prices = 0
    counts.families = families
    counts.price_findall = price_findall
    try:
        capacity = 256
        stack = <Item *>PyMem_Realloc(NULL, capacity * sizeof(Item))
        if stack == NULL:
            raise MemoryError()
        stack[0].node = top
        stack[0].inside = 0
        depth = 1
        while depth:
            depth -= 1
            node = stack[depth].node
            inside = stack[depth].inside
            if node.type != tree.XML_ELEMENT_NODE:  # a comment or PI: nothing counted
                continue
            if (node.ns != NULL and node.ns.href != NULL) or node.name == NULL:
                return None
            tag = (<bytes><const char *>node.name).decode("utf-8")
            counts.tags[tag] = counts.tags.get(tag, 0) + 1
            counts.classes_of(node)
            if tag in skip:
                continue
            position = share_index.get(tag)
            if position is not None:
                inside |= (<unsigned long long>1) << <int>position
            words = counts.text(node.children, inside)
            if tag == "p" and words > counts.longest_p:
                counts.longest_p = words
            child = node.children
            while child != NULL:
                if child.type == tree.XML_ENTITY_REF_NODE:
                    return None
                if child.type == tree.XML_ELEMENT_NODE or child.type == tree.XML_COMMENT_NODE \
                        or child.type == tree.XML_PI_NODE:
                    if depth == capacity:
                        capacity *= 2
                        grown = <Item *>PyMem_Realloc(stack, capacity * sizeof(Item))
                        if grown == NULL:
                            raise MemoryError()
                        stack = grown
                    stack[depth].node = child
                    stack[depth].inside = inside
                    depth += 1
                    counts.text(child.next, inside)
                child = child.next
    finally:
        PyMem_Free(stack)
    text_in = [counts.text_in[i] for i in range(len(share_index) + 1)]
    classes = {family_names[i]: counts.families_n[i] for i in range(len(family_names))
               if counts.families_n[i]}
    return counts.tags, classes, text_in, counts.longest_p, counts.prices


def document_parts(root):
    """document_parts(root) -> tuple | None: what ``page_type_features`` reads off the whole
    tree besides the body's counts, in one walk of ``root``'s subtree: the tag counts of the
    first ``<head>`` (``root.iter("head")``, its elements counted with it; None when there is
    none), the text of each ``<script>`` whose ``type`` holds ``ld+json``, each element's
    ``itemtype`` and the ``content`` of each ``<meta property="og:type">`` (any case).  None
    when the tree needs lxml (a namespaced element or an entity reference)."""
    cdef cetree._Element holder = cetree.rootNodeOrRaise(root)
    cdef xmlNode *top = holder._c_node
    cdef xmlNode *n = top
    cdef xmlNode *head = NULL
    cdef xmlNode *h
    head_tags = None
    scripts, itemtypes, og_types = [], [], []
    while n != NULL:
        if n.type == tree.XML_ENTITY_REF_NODE:
            return None
        if n.type == tree.XML_ELEMENT_NODE:
            if (n.ns != NULL and n.ns.href != NULL) or n.name == NULL:
                return None
            if head == NULL and has_name(n, "head"):
                head = n
            itemtype = cetree.attributeValueFromNsName(n, NULL, <const_xmlChar *>"itemtype")
            if itemtype is not None:
                itemtypes.append(itemtype)
            if has_name(n, "script"):
                kind = cetree.attributeValueFromNsName(n, NULL, <const_xmlChar *>"type")
                if kind is not None and "ld+json" in kind.lower():
                    scripts.append(cetree.textOf(n))
            elif has_name(n, "meta"):
                prop = cetree.attributeValueFromNsName(n, NULL, <const_xmlChar *>"property")
                if prop is not None and prop.lower() == "og:type":
                    og_types.append(cetree.attributeValueFromNsName(
                        n, NULL, <const_xmlChar *>"content"))
        n = next_in_subtree(n, top)
    if head != NULL:
        head_tags = {}
        h = head
        while h != NULL:
            if h.type == tree.XML_ELEMENT_NODE:
                tag = (<bytes><const char *>h.name).decode("utf-8")
                head_tags[tag] = head_tags.get(tag, 0) + 1
            h = next_in_subtree(h, head)
    return head_tags, scripts, itemtypes, og_types
