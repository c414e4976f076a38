/* notes.c: the list of notes job assembly returns (see notes.h). */
#include "notes.h"
#include "base/util.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

tc_note_kind tc_note_kind_of(tc_note_code code) {
    switch (code) {
    case TC_NOTE_NAMED_TWICE: case TC_NOTE_SAME_FILE: case TC_NOTE_NOT_A_TRACE: case TC_NOTE_NCCL: return TC_NOTE_KIND_NOTE;
    case TC_NOTE_NOT_REGULAR: case TC_NOTE_DAMAGED: return TC_NOTE_KIND_WARNING;
    default: return TC_NOTE_KIND_PROBLEM;
    }
}

void tc_notes_add(tc_notes *notes, tc_note_code code, const char *path, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    tc_note n = {code, path ? tc_strdup(path) : NULL, tc_vformat_alloc(fmt, ap)};
    va_end(ap);
    if (!n.text || (path && !n.path) || TC_PUSH(notes->v, notes->n, notes->cap, n)) {
        free(n.path);
        free(n.text);
        notes->lost = true;
    }
}

void tc_notes_free(tc_notes *notes) {
    for (size_t i = 0; i < notes->n; i++) {
        free(notes->v[i].path);
        free(notes->v[i].text);
    }
    free(notes->v);
    memset(notes, 0, sizeof *notes);
}
