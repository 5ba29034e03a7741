# cython: language_level=3
"""What the native tree walks (``segment/_cdom.pyx``, ``page_typing/_ptwalk.pyx``) share:
lxml's public Cython API (``lxml/includes/etreepublic.pxd``, ``tree.pxd``), the release
lxml's headers name, and the step through an element's subtree in document order.

A module that cimports this file calls ``cetree.import_lxml__etree()`` once at import and
states the releases it was compiled against (``LXML_VERSION``, ``LIBXML_VERSION``: the
versioned loader uses it only with the same).
"""

cimport lxml.includes.etreepublic as cetree
from lxml.includes cimport tree
from lxml.includes.tree cimport const_xmlChar, xmlNode
from libc.string cimport strcmp

cdef extern from "lxml-version.h":
    const char *LXML_VERSION_STRING


cdef inline str compiled_lxml_version():
    """The lxml release of the headers this module was compiled against."""
    return LXML_VERSION_STRING.decode("ascii")


cdef inline xmlNode *next_in_subtree(xmlNode *node, xmlNode *root) noexcept:
    """The next node after ``node`` in document order within ``root``'s subtree, descending
    only into elements (what lxml's ``iter()`` visits); NULL past the end."""
    if node.type == tree.XML_ELEMENT_NODE and node.children != NULL:
        return node.children
    while node != root:
        if node.next != NULL:
            return node.next
        node = node.parent
    return NULL


cdef inline bint has_name(xmlNode *node, const char *name) noexcept:
    """True when libxml2 names ``node`` ``name`` (its namespace not looked at)."""
    return node.name != NULL and strcmp(<const char *>node.name, name) == 0
