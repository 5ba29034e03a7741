/* C accelerator of corpuscrawl.extract.learned.forest: all trees of a fitted gradient-boosted
 * classifier over all rows of one page in one call.
 *
 * scikit-learn's HistGradientBoostingClassifier predicts tree by tree, one Cython call per
 * tree; on a page of a few hundred blocks the per-call cost dominates (300 trees in the
 * two stages of `auto`: about 4 ms a page).  This walks the same nodes with the same tests
 * (a missing value follows the node's missing-goes-left flag, else x <= threshold goes
 * left) and adds the leaf values in the same order, starting from the same baseline, so
 * the raw scores are bit-identical (tests/test_forest.py compares them).
 *
 * Node layout (forest.py's NODE_DTYPE, 16 bytes): each tree's nodes in preorder, so a split's
 * left child is the next node and one record holds all a step reads: the threshold (a
 * leaf's value for a leaf), the feature index (LEAF_FEATURE for a leaf; bit MISSING_LEFT_BIT
 * set when a missing value goes left) and the index of the right child.  One 16-byte load
 * per step instead of five arrays' entries (the walk is bound by its chain of dependent
 * loads and branches).
 *
 * Every node is checked before the walk: a split's feature is in range and both children
 * lie after it inside its own tree, so every walk moves forward and ends at a leaf; an array
 * that does not describe preorder trees raises ValueError instead of reading out of bounds
 * or looping.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>

typedef struct {
    double threshold; /* a leaf: its value */
    int32_t feature;  /* LEAF_FEATURE for a leaf */
    int32_t right;    /* index of the right child, within the forest */
} Node;

#define LEAF_FEATURE (-1)
#define MISSING_LEFT_BIT 0x40000000
#define FEATURE_MASK 0x3fffffff

/* Add each row's leaf value of every tree, tree by tree over all rows (one tree's nodes stay
 * in the cache while every row walks it; each row still adds its leaf values in tree order
 * from the baseline, so its sum is the one a row-by-row walk, and scikit-learn, gives).
 * `with_missing`: some value of x is NaN (then each split's missing-goes-left flag decides);
 * without it `v <= threshold` alone decides, as it does for every non-NaN value. */
static void walk(const double *xs, Py_ssize_t n_rows, Py_ssize_t n_features, const Node *nodes,
                 const int64_t *roots, Py_ssize_t n_trees, int with_missing, double *dst)
{
    for (Py_ssize_t t = 0; t < n_trees; t++) {
        const Node *root = nodes + roots[t];
        for (Py_ssize_t i = 0; i < n_rows; i++) {
            const double *row = xs + i * n_features;
            const Node *p = root;
            if (with_missing) {
                while (p->feature != LEAF_FEATURE) {
                    double v = row[p->feature & FEATURE_MASK];
                    int left = v <= p->threshold || (isnan(v) && (p->feature & MISSING_LEFT_BIT));
                    p = left ? p + 1 : nodes + p->right;
                }
            } else {
                while (p->feature != LEAF_FEATURE) {
                    double v = row[p->feature & FEATURE_MASK];
                    p = v <= p->threshold ? p + 1 : nodes + p->right;
                }
            }
            dst[i] += p->threshold;
        }
    }
}

static PyObject *forest_raw(PyObject *self, PyObject *args)
{
    Py_buffer x, nodes_buf, roots_buf, out;
    Py_ssize_t n_features;
    double baseline;
    PyObject *result = NULL;

    if (!PyArg_ParseTuple(args, "y*ny*y*dw*:forest_raw", &x, &n_features, &nodes_buf,
                          &roots_buf, &baseline, &out))
        return NULL;
    if (n_features <= 0 || n_features > FEATURE_MASK) {
        PyErr_SetString(PyExc_ValueError, "n_features must be positive (and below 2**30)");
        goto done;
    }
    Py_ssize_t n_rows = x.len / (Py_ssize_t)(sizeof(double) * n_features);
    Py_ssize_t n_nodes = nodes_buf.len / (Py_ssize_t)sizeof(Node);
    Py_ssize_t n_trees = roots_buf.len / (Py_ssize_t)sizeof(int64_t);
    if (x.len != n_rows * n_features * (Py_ssize_t)sizeof(double) ||
        nodes_buf.len != n_nodes * (Py_ssize_t)sizeof(Node) ||
        roots_buf.len != n_trees * (Py_ssize_t)sizeof(int64_t) ||
        out.len != n_rows * (Py_ssize_t)sizeof(double)) {
        PyErr_Format(PyExc_ValueError, "buffer sizes do not fit: x %zd bytes for %zd features, "
                     "nodes %zd bytes (%zd-byte records), roots %zd, out %zd", x.len,
                     n_features, nodes_buf.len, (Py_ssize_t)sizeof(Node), roots_buf.len, out.len);
        goto done;
    }
    if (n_nodes > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "more nodes than 32-bit indices address");
        goto done;
    }
    const double *xs = (const double *)x.buf;
    const Node *nodes = (const Node *)nodes_buf.buf;
    const int64_t *roots = (const int64_t *)roots_buf.buf;
    double *dst = (double *)out.buf;

    /* Tree t holds nodes roots[t] .. roots[t+1]-1 (the last tree ends with the array). */
    for (Py_ssize_t t = 0; t < n_trees; t++) {
        int64_t start = roots[t], end = t + 1 < n_trees ? roots[t + 1] : n_nodes;
        if (start < 0 || start >= end || end > n_nodes) {
            PyErr_Format(PyExc_ValueError, "tree %zd: root out of range (roots must increase "
                         "within the %zd nodes)", t, n_nodes);
            goto done;
        }
        for (int64_t k = start; k < end; k++) {
            const Node *p = nodes + k;
            if (p->feature == LEAF_FEATURE)
                continue;
            int32_t f = p->feature & FEATURE_MASK;
            if (p->feature < 0 || (p->feature & ~(FEATURE_MASK | MISSING_LEFT_BIT)) ||
                f >= n_features || k + 1 >= end || p->right <= k + 1 || p->right >= end) {
                PyErr_Format(PyExc_ValueError, "node %lld: feature or child index out of range "
                             "(not a preorder tree)", (long long)k);
                goto done;
            }
        }
    }

    Py_BEGIN_ALLOW_THREADS
    int with_missing = 0;
    for (Py_ssize_t k = 0; k < n_rows * n_features; k++) {
        if (isnan(xs[k])) {
            with_missing = 1;
            break;
        }
    }
    for (Py_ssize_t i = 0; i < n_rows; i++)
        dst[i] = baseline;
    walk(xs, n_rows, n_features, nodes, roots, n_trees, with_missing, dst);
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&x);
    PyBuffer_Release(&nodes_buf);
    PyBuffer_Release(&roots_buf);
    PyBuffer_Release(&out);
    return result;
}

static PyMethodDef methods[] = {
    {"forest_raw", forest_raw, METH_VARARGS,
     "forest_raw(x, n_features, nodes, roots, baseline, out) -> None\n\n"
     "Write baseline + the sum of every tree's leaf value for each row of x (float64, "
     "row-major) into out; nodes: 16-byte records (threshold or leaf value float64, feature "
     "int32, right child int32), each tree in preorder from its root."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_forest",
    "C accelerator of corpuscrawl.extract.learned.forest (see _forest.c).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__forest(void)
{
    PyObject *m = PyModule_Create(&module);
    /* The interface forest.py calls (forest.FOREST_API): raise it with any change of it. */
    if (m != NULL && PyModule_AddIntConstant(m, "API", 2) < 0)
        Py_CLEAR(m);
    return m;
}
