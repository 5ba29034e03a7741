/* C accelerator of corpuscrawl.html.language: py3langid's feature walk.
 *
 * py3langid scores a text from the counts of the byte n-gram features a finite automaton
 * meets while reading the text's UTF-8 bytes (py3langid.langid.visit_counts, a Python loop
 * over the bytes).  `visit_counts(nextmove, states, data)` runs the same automaton on the
 * same tables (nextmove: the automaton's transitions; states: each state's row offset and
 * the feature it emits or -1, py3langid's rowbase and output side by side so that a step
 * reads one place beside the transition table: its 39 MB are read at random and are mostly
 * out of the caches) and returns the same counts as a dict in
 * the same order (the order features are first met: the order the Counter of the Python loop
 * has, which the scores' sum follows), or None when no feature is met.  Every table index is
 * checked.  tests/test_language_fast.py compares it and the identifier using it with py3langid.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* One automaton state: its row's offset in nextmove and the feature it emits (-1: none),
 * side by side, so a step reads the state it reaches and its next row from one place. */
typedef struct {
    int32_t rowbase;
    int32_t output;
} State;

typedef struct {
    int32_t feature;  /* -1: empty slot */
    int32_t order;    /* index in the first-met order */
} Slot;

static PyObject *visit_counts(PyObject *self, PyObject *args)
{
    Py_buffer nextmove, states_buf, data;
    if (!PyArg_ParseTuple(args, "y*y*y*:visit_counts", &nextmove, &states_buf, &data))
        return NULL;
    PyObject *result = NULL;
    Slot *slots = NULL;
    int32_t *features = NULL, *counts = NULL;
    if (nextmove.itemsize != 4 || states_buf.itemsize != 4 || states_buf.len % 8 != 0) {
        PyErr_SetString(PyExc_ValueError, "nextmove must hold 4-byte integers, states pairs of "
                        "4-byte integers (row offset, output)");
        goto done;
    }
    const uint32_t *nm = (const uint32_t *)nextmove.buf;
    const State *states = (const State *)states_buf.buf;
    const unsigned char *text = (const unsigned char *)data.buf;
    Py_ssize_t n_nm = nextmove.len / 4, n_states = states_buf.len / 8;
    Py_ssize_t n = data.len;
    Py_ssize_t size = 64;
    while (size < 2 * n + 2)
        size *= 2;
    slots = PyMem_Malloc(size * sizeof(Slot));
    features = PyMem_Malloc((n + 1) * sizeof(int32_t));
    counts = PyMem_Malloc((n + 1) * sizeof(int32_t));
    if (slots == NULL || features == NULL || counts == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < size; i++)
        slots[i].feature = -1;
    Py_ssize_t distinct = 0;
    uint32_t state = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if ((Py_ssize_t)state >= n_states) {
            PyErr_Format(PyExc_ValueError, "state %u out of range", state);
            goto done;
        }
        int64_t at = (int64_t)states[state].rowbase + text[i];
        if (at < 0 || at >= n_nm) {
            PyErr_Format(PyExc_ValueError, "transition %lld out of range", (long long)at);
            goto done;
        }
        state = nm[at];
        if ((Py_ssize_t)state >= n_states) {
            PyErr_Format(PyExc_ValueError, "state %u out of range", state);
            goto done;
        }
        int32_t f = states[state].output;
        if (f < 0)
            continue;
        Py_ssize_t j = ((uint32_t)f * 2654435761u) & (size - 1);
        while (slots[j].feature != -1 && slots[j].feature != f)
            j = (j + 1) & (size - 1);
        if (slots[j].feature == -1) {
            slots[j].feature = f;
            slots[j].order = (int32_t)distinct;
            features[distinct] = f;
            counts[distinct] = 0;
            distinct++;
        }
        counts[slots[j].order]++;
    }
    if (distinct == 0) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    result = PyDict_New();
    for (Py_ssize_t k = 0; result != NULL && k < distinct; k++) {
        PyObject *key = PyLong_FromLong(features[k]);
        PyObject *value = PyLong_FromLong(counts[k]);
        if (key == NULL || value == NULL || PyDict_SetItem(result, key, value) < 0)
            Py_CLEAR(result);
        Py_XDECREF(key);
        Py_XDECREF(value);
    }
done:
    PyMem_Free(slots);
    PyMem_Free(features);
    PyMem_Free(counts);
    PyBuffer_Release(&nextmove);
    PyBuffer_Release(&states_buf);
    PyBuffer_Release(&data);
    return result;
}

static PyMethodDef methods[] = {
    {"visit_counts", visit_counts, METH_VARARGS,
     "visit_counts(nextmove, states, data) -> dict | None: py3langid's feature counts of data "
     "(bytes), in the order the features are first met; states: per state its row offset in "
     "nextmove and the feature it emits (-1: none), as 4-byte integer pairs."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_langid",
    "C accelerator of corpuscrawl.html.language (py3langid's feature walk).", -1, methods,
};

PyMODINIT_FUNC PyInit__langid(void)
{
    PyObject *m = PyModule_Create(&module);
    /* The interface language.py calls (language.LANGID_API): raise it with any change of it. */
    if (m != NULL && PyModule_AddIntConstant(m, "API", 2) < 0)
        Py_CLEAR(m);
    return m;
}
