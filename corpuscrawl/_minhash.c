/* Optional accelerator of corpuscrawl.dedup: the MinHash signature of one text.
 *
 * What: signature(data, shingle_words, num_perm, a, b) -> bytes is the
 * num_perm uint32 values (native byte order) that dedup.MinHasher's numpy code
 * computes for the UTF-8 bytes ``data`` of words separated by single spaces:
 * word hash fmix64(sum(byte_j * B**j)), shingle hash polynomial over
 * ``shingle_words`` word hashes mixed by ``a``/``b``, one permutation hashing
 * into num_perm bins, empty bins densified by rotation.  All arithmetic is
 * modulo 2**64 (or 2**32), exactly as numpy's unsigned integers wrap.
 *
 * Why: the numpy version makes ~25 array calls per document; run between
 * extractions (cold caches) they cost ~0.15 ms per page, the largest step of
 * the export stage after the SQLite writes (benchmarks/results/boilerplate.md).
 * One loop in C is ~20 times cheaper.  tests/test_dedup.py compares the two.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define BYTE_BASE 0x9E3779B97F4A7C15ULL
#define SHINGLE_BASE 1000003ULL
#define DENSIFY 0x9E3779B1u

static uint64_t fmix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ULL;
    return h ^ (h >> 33);
}

static PyObject *signature(PyObject *self, PyObject *args)
{
    Py_buffer view;
    Py_ssize_t shingle_words, num_perm;
    unsigned long long a, b;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*nnKK:signature", &view, &shingle_words, &num_perm, &a, &b))
        return NULL;
    if (shingle_words < 1 || num_perm < 2) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "shingle_words must be >= 1 and num_perm >= 2");
        return NULL;
    }
    const unsigned char *data = view.buf;
    Py_ssize_t n = view.len, words = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        words += data[i] == ' ';
    words = n > 0 ? words + 1 : 0;
    uint64_t *hashes = PyMem_Malloc(sizeof(uint64_t) * (size_t)(words > 0 ? words : 1));
    uint32_t *sig = PyMem_Malloc(sizeof(uint32_t) * (size_t)num_perm);
    unsigned char *filled = PyMem_Calloc((size_t)num_perm, 1);
    PyObject *result = NULL;
    if (hashes == NULL || sig == NULL || filled == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t w = 0;
    uint64_t h = 0, power = 1;
    for (Py_ssize_t i = 0; i < n; i++) {   /* word hashes */
        if (data[i] == ' ') {
            hashes[w++] = fmix64(h);
            h = 0;
            power = 1;
        }
        else {
            h += (uint64_t)data[i] * power;
            power *= BYTE_BASE;
        }
    }
    if (n > 0)
        hashes[w++] = fmix64(h);
    for (Py_ssize_t k = 0; k < num_perm; k++)
        sig[k] = 0xFFFFFFFFu;
    Py_ssize_t filled_bins = 0;
    if (words > 0) {
        Py_ssize_t span = shingle_words < words ? shingle_words : words;
        for (Py_ssize_t i = 0; i + span <= words; i++) {   /* shingles, one permutation */
            uint64_t acc = 0;
            for (Py_ssize_t k = 0; k < span; k++)
                acc = acc * SHINGLE_BASE + hashes[i + k];
            uint64_t mixed = acc * a + b;
            uint64_t shingle = mixed ^ (mixed >> 29);
            Py_ssize_t bin = (Py_ssize_t)(shingle % (uint64_t)num_perm);
            uint32_t value = (uint32_t)(shingle >> 32);
            if (value < sig[bin])
                sig[bin] = value;
            if (!filled[bin]) {
                filled[bin] = 1;
                filled_bins++;
            }
        }
    }
    result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizeof(uint32_t) * num_perm);
    if (result == NULL)
        goto done;
    uint32_t *out = (uint32_t *)PyBytes_AS_STRING(result);
    for (Py_ssize_t k = 0; k < num_perm; k++) {
        if (filled[k] || filled_bins == 0) {
            out[k] = sig[k];
            continue;
        }
        Py_ssize_t source = k;   /* the next filled bin to the right, circularly */
        while (!filled[source])
            source = (source + 1) % num_perm;
        uint32_t distance = (uint32_t)(((source - k) % num_perm + num_perm) % num_perm);
        out[k] = sig[source] ^ (uint32_t)(distance * DENSIFY);
    }
done:
    PyMem_Free(hashes);
    PyMem_Free(sig);
    PyMem_Free(filled);
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef methods[] = {
    {"signature", signature, METH_VARARGS,
     "signature(data: bytes, shingle_words: int, num_perm: int, a: int, b: int) -> bytes\n\n"
     "The MinHash signature of space-separated UTF-8 words (see _minhash.c)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_minhash",
    "C accelerator of corpuscrawl.dedup (see _minhash.c).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__minhash(void)
{
    return PyModule_Create(&module);
}
