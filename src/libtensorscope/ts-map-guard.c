/* ts-map-guard.c: a file truncated under its mapping
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Model files are read through mmap(). When another program truncates a
 * file we have open (a converter rewriting its output in place, say), the
 * pages past the new end raise SIGBUS on the next access. The handler below
 * looks the faulting address up in a fixed table of guarded ranges, maps a
 * page of zeros over the faulting page so the access can complete, and
 * flags the range as damaged. Anything else -- a fault outside every range,
 * a SIGBUS sent with kill() -- goes to the action that was there before,
 * or kills the process as it would have.
 *
 * The handler runs in signal context, on any thread, while other threads
 * may add or remove ranges: each slot has a sequence number, odd while its
 * range is being written, and the handler takes a range only if the number
 * was even and unchanged around its reads. The damaged flag lives in the
 * slot, not behind a pointer a removal could leave dangling.
 */

#include "config.h"

#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ts-map-guard-private.h"

/* mapped files guarded at once, in all the models open: a checkpoint or
 * a split set of more files is refused (_ts_file_part_open()) rather than
 * read unguarded */
#define MAX_GUARDS TS_MAP_GUARD_MAX

typedef struct
{
  int       used;       /* atomic: the slot is taken */
  guint     seq;        /* atomic: odd while start/end are being written */
  guintptr  start;      /* atomic */
  guintptr  end;        /* atomic */
  int       damaged;    /* atomic */
} Guard;

static Guard guards[MAX_GUARDS];
static struct sigaction previous;
static guintptr page_size;

/* the slot whose range holds @addr, or -1 */
static int
find_guard (guintptr addr)
{
  for (int i = 0; i < MAX_GUARDS; i++)
    {
      Guard *g = &guards[i];
      guint seq = __atomic_load_n (&g->seq, __ATOMIC_ACQUIRE);
      guintptr start, end;

      if (seq % 2 != 0)
        continue;
      start = __atomic_load_n (&g->start, __ATOMIC_RELAXED);
      end = __atomic_load_n (&g->end, __ATOMIC_RELAXED);
      __atomic_thread_fence (__ATOMIC_ACQUIRE);
      if (__atomic_load_n (&g->seq, __ATOMIC_RELAXED) != seq)
        continue;
      if (start != 0 && addr >= start && addr < end)
        return i;
    }
  return -1;
}

static void
on_sigbus (int        sig,
           siginfo_t *info,
           void      *context)
{
  /* a fault on a mapped page (not a signal sent by a process) */
  if (info->si_code == BUS_ADRERR)
    {
      guintptr addr = (guintptr) info->si_addr;
      int i = find_guard (addr);

      if (i >= 0 &&
          mmap ((void *) (addr & ~(page_size - 1)), page_size, PROT_READ,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED)
        {
          __atomic_store_n (&guards[i].damaged, 1, __ATOMIC_RELEASE);
          return;
        }
    }

  /* not ours */
  if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction != NULL)
    previous.sa_sigaction (sig, info, context);
  else if (previous.sa_handler == SIG_IGN)
    {
      /* a sent signal stays ignored; a real fault would only recur, so it
       * ends the process as the kernel would have */
      if (info->si_code > 0)
        {
          signal (SIGBUS, SIG_DFL);
          raise (SIGBUS);
        }
    }
  else if (previous.sa_handler != SIG_DFL)
    previous.sa_handler (sig);
  else
    {
      signal (SIGBUS, SIG_DFL);
      raise (SIGBUS);
    }
}

static gpointer
install_handler (gpointer data)
{
  struct sigaction action;

  page_size = (guintptr) sysconf (_SC_PAGESIZE);
  memset (&action, 0, sizeof action);
  action.sa_sigaction = on_sigbus;
  action.sa_flags = SA_SIGINFO;
  sigemptyset (&action.sa_mask);
  sigaction (SIGBUS, &action, &previous);
  return NULL;
}

int
_ts_map_guard_add (const void *start,
                   gsize       length)
{
  static GOnce once = G_ONCE_INIT;

  g_once (&once, install_handler, NULL);
  for (int i = 0; i < MAX_GUARDS; i++)
    {
      Guard *g = &guards[i];
      int expected = 0;

      if (!__atomic_compare_exchange_n (&g->used, &expected, 1, FALSE,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        continue;
      __atomic_add_fetch (&g->seq, 1, __ATOMIC_ACQ_REL);   /* odd: writing */
      __atomic_store_n (&g->start, (guintptr) start, __ATOMIC_RELAXED);
      __atomic_store_n (&g->end, (guintptr) start + length, __ATOMIC_RELAXED);
      __atomic_store_n (&g->damaged, 0, __ATOMIC_RELAXED);
      __atomic_add_fetch (&g->seq, 1, __ATOMIC_RELEASE);   /* even: ready */
      return i;
    }
  return -1;
}

gboolean
_ts_map_guard_is_damaged (int handle)
{
  if (handle < 0 || handle >= MAX_GUARDS)
    return FALSE;
  return __atomic_load_n (&guards[handle].damaged, __ATOMIC_ACQUIRE) != 0;
}

void
_ts_map_guard_remove (int handle)
{
  Guard *g;

  if (handle < 0 || handle >= MAX_GUARDS)
    return;
  g = &guards[handle];
  __atomic_add_fetch (&g->seq, 1, __ATOMIC_ACQ_REL);
  __atomic_store_n (&g->start, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&g->end, 0, __ATOMIC_RELAXED);
  __atomic_add_fetch (&g->seq, 1, __ATOMIC_RELEASE);
  __atomic_store_n (&g->used, 0, __ATOMIC_RELEASE);
}
