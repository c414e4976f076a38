/* notes.h: what job assembly found, as data: every problem and note of expanding the operands
 * (inputs.h) and of assembling the job (assemble.h), in the order it was found, each with a code,
 * the file it is about and its text. The library never prints them; cli/ does, one line each. */
#ifndef TC_NOTES_H
#define TC_NOTES_H
#include <stdbool.h>
#include <stddef.h>
#include "base/status.h"

typedef enum {
    /* expanding the operands (inputs.h) */
    TC_NOTE_NOT_REGULAR,     /* warning: a folder entry named like a trace that is not a regular file: skipped */
    TC_NOTE_NAMED_TWICE,     /* note: one path given twice: read once */
    TC_NOTE_SAME_FILE,       /* note: two paths of one file: read once */
    /* each input (assemble.h), in input order */
    TC_NOTE_DAMAGED,         /* warning: damaged or cut short; what was read is analyzed */
    TC_NOTE_NOT_LOADED,      /* unreadable, empty, not JSON, out of memory: left out */
    TC_NOTE_NOT_A_TRACE,     /* note: a JSON file found in a folder that holds no trace events: skipped */
    TC_NOTE_TIMES_OVERFLOW,  /* its GPU times add up past 2^63 ns: left out */
    TC_NOTE_NO_GPU,          /* no GPU activity (a CPU-only trace?): left out */
    TC_NOTE_NCCL,            /* note: what an NCCL log holds that is not read (nccl_inspector.h) */
    /* the job */
    TC_NOTE_NOTHING,         /* none of several inputs holds usable GPU activity */
    TC_NOTE_TIMES_TOO_LONG,  /* the kept inputs' GPU times add up past 2^63 ns together */
    TC_NOTE_NOT_ONE_JOB,     /* the inputs disagree on the world size or a process group's members */
    TC_NOTE_RANK_TWICE,      /* two inputs of one rank at the same time, or without times to tell apart */
    TC_NOTE_NO_SUCH_WINDOW,  /* the window asked for is not among the inputs' profiler windows */
    TC_NOTE_NO_MEMORY        /* out of memory */
} tc_note_code;

/* How a note reads: a note, a warning, or a problem (an input or the job that cannot be used). */
typedef enum { TC_NOTE_KIND_NOTE, TC_NOTE_KIND_WARNING, TC_NOTE_KIND_PROBLEM } tc_note_kind;

typedef struct {
    tc_note_code code;
    char *path;              /* the file it is about; NULL for the job, and for two files that
                              * disagree (the text names both) */
    char *text;              /* the whole message, naming the file, without a kind word or newline */
} tc_note;

typedef struct {
    tc_note *v; size_t n, cap;
    bool lost;               /* a note could not be kept (out of memory) */
} tc_notes;

tc_note_kind tc_note_kind_of(tc_note_code code);
/* Appends a note (text printf-style, whole); out of memory it is dropped and
 * notes->lost set. */
void tc_notes_add(tc_notes *notes, tc_note_code code, const char *path, const char *fmt, ...) TC_FORMAT_LIKE(4, 5);
void tc_notes_free(tc_notes *notes);
#endif
