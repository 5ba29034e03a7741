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
 * Every index is checked before the walk: a node array that does not describe trees (an
 * index out of range, a cycle) raises ValueError instead of reading out of bounds or
 * looping (each walk stops after max_steps nodes).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>

#define FLAG_LEAF 1
#define FLAG_MISSING_LEFT 2

static int check_len(Py_buffer *b, Py_ssize_t n, Py_ssize_t itemsize, const char *name)
{
    if (b->len != n * itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes, expected %zd", name, b->len,
                     n * itemsize);
        return -1;
    }
    return 0;
}

static PyObject *forest_raw(PyObject *self, PyObject *args)
{
    Py_buffer x, feature, threshold, flags, left, right, value, roots, out;
    Py_ssize_t n_features, max_steps;
    double baseline;
    PyObject *result = NULL;

    if (!PyArg_ParseTuple(args, "y*ny*y*y*y*y*y*y*dnw*:forest_raw", &x, &n_features,
                          &feature, &threshold, &flags, &left, &right, &value, &roots,
                          &baseline, &max_steps, &out))
        return NULL;
    Py_ssize_t n_nodes = flags.len;
    Py_ssize_t n_trees = roots.len / (Py_ssize_t)sizeof(int64_t);
    Py_ssize_t n_rows = n_features > 0 ? x.len / (Py_ssize_t)(sizeof(double) * n_features) : 0;
    if (n_features <= 0) {
        PyErr_SetString(PyExc_ValueError, "n_features must be positive");
        goto done;
    }
    if (check_len(&x, n_rows * n_features, sizeof(double), "x") ||
        check_len(&feature, n_nodes, sizeof(int64_t), "feature") ||
        check_len(&threshold, n_nodes, sizeof(double), "threshold") ||
        check_len(&left, n_nodes, sizeof(int64_t), "left") ||
        check_len(&right, n_nodes, sizeof(int64_t), "right") ||
        check_len(&value, n_nodes, sizeof(double), "value") ||
        check_len(&roots, n_trees, sizeof(int64_t), "roots") ||
        check_len(&out, n_rows, sizeof(double), "out"))
        goto done;

    const double *xs = (const double *)x.buf;
    const int64_t *feat = (const int64_t *)feature.buf;
    const double *thr = (const double *)threshold.buf;
    const uint8_t *flag = (const uint8_t *)flags.buf;
    const int64_t *lo = (const int64_t *)left.buf;
    const int64_t *hi = (const int64_t *)right.buf;
    const double *val = (const double *)value.buf;
    const int64_t *root = (const int64_t *)roots.buf;
    double *dst = (double *)out.buf;

    for (Py_ssize_t k = 0; k < n_nodes; k++) {
        if (flag[k] & FLAG_LEAF)
            continue;
        if (feat[k] < 0 || feat[k] >= n_features || lo[k] < 0 || lo[k] >= n_nodes ||
            hi[k] < 0 || hi[k] >= n_nodes) {
            PyErr_Format(PyExc_ValueError, "node %zd: index out of range", k);
            goto done;
        }
    }
    for (Py_ssize_t t = 0; t < n_trees; t++) {
        if (root[t] < 0 || root[t] >= n_nodes) {
            PyErr_Format(PyExc_ValueError, "tree %zd: root out of range", t);
            goto done;
        }
    }

    int too_deep = 0;
    Py_BEGIN_ALLOW_THREADS
    /* Tree by tree over all rows: one tree's nodes stay in the cache while every row walks
     * it.  Each row still adds its leaf values in tree order from the baseline, so the sums
     * are the ones a row-by-row walk (and scikit-learn) gives. */
    for (Py_ssize_t i = 0; i < n_rows; i++)
        dst[i] = baseline;
    for (Py_ssize_t t = 0; t < n_trees && !too_deep; t++) {
        for (Py_ssize_t i = 0; i < n_rows; i++) {
            const double *row = xs + i * n_features;
            int64_t node = root[t];
            Py_ssize_t steps = 0;
            while (!(flag[node] & FLAG_LEAF)) {
                double v = row[feat[node]];
                if (isnan(v))
                    node = (flag[node] & FLAG_MISSING_LEFT) ? lo[node] : hi[node];
                else
                    node = v <= thr[node] ? lo[node] : hi[node];
                if (++steps > max_steps) {
                    too_deep = 1;
                    break;
                }
            }
            if (too_deep)
                break;
            dst[i] += val[node];
        }
    }
    Py_END_ALLOW_THREADS
    if (too_deep) {
        PyErr_SetString(PyExc_ValueError, "a tree walk exceeded max_steps (not a tree)");
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&x);
    PyBuffer_Release(&feature);
    PyBuffer_Release(&threshold);
    PyBuffer_Release(&flags);
    PyBuffer_Release(&left);
    PyBuffer_Release(&right);
    PyBuffer_Release(&value);
    PyBuffer_Release(&roots);
    PyBuffer_Release(&out);
    return result;
}

static PyMethodDef methods[] = {
    {"forest_raw", forest_raw, METH_VARARGS,
     "forest_raw(x, n_features, feature, threshold, flags, left, right, value, roots, "
     "baseline, max_steps, out) -> None\n\n"
     "Write baseline + the sum of every tree's leaf value for each row of x into out."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_forest",
    "C accelerator of corpuscrawl.extract.learned.forest (see _forest.c).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__forest(void)
{
    return PyModule_Create(&module);
}
