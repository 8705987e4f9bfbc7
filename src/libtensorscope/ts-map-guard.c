/* ts-map-guard.c: a file truncated under its mapping
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Model files are read through mmap(). When another program truncates a
 * file we have open (a converter rewriting its output in place, say), the
 * pages past the new end raise SIGBUS on the next access. The handler below
 * looks the address up in a fixed table of guarded ranges (lock-free: it
 * runs in signal context), maps a page of zeros over the faulting page so
 * the access can complete, and flags the range's file as damaged. A fault
 * outside every guarded range goes to the handler that was there before
 * (or kills the process as it would have).
 */

#include "config.h"

#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ts-map-guard-private.h"

#define MAX_GUARDS 1024

enum { SLOT_FREE, SLOT_BUSY, SLOT_READY };

typedef struct
{
  int       state;      /* atomic */
  guintptr  start;
  guintptr  end;
  gint     *damaged;
} Guard;

static Guard guards[MAX_GUARDS];
static struct sigaction previous;
static guintptr page_size;

static void
on_sigbus (int        sig,
           siginfo_t *info,
           void      *context)
{
  guintptr addr = (guintptr) info->si_addr;

  for (guint i = 0; i < MAX_GUARDS; i++)
    {
      Guard *g = &guards[i];

      if (__atomic_load_n (&g->state, __ATOMIC_ACQUIRE) != SLOT_READY ||
          addr < g->start || addr >= g->end)
        continue;
      if (mmap ((void *) (addr & ~(page_size - 1)), page_size, PROT_READ,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED)
        {
          __atomic_store_n (g->damaged, 1, __ATOMIC_RELEASE);
          return;
        }
      break;
    }

  /* not ours */
  if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction != NULL)
    previous.sa_sigaction (sig, info, context);
  else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN)
    previous.sa_handler (sig);
  else
    {
      /* the access faults again on return, now with the default action */
      signal (SIGBUS, SIG_DFL);
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
                   gsize       length,
                   gint       *damaged)
{
  static GOnce once = G_ONCE_INIT;

  g_return_val_if_fail (damaged != NULL, -1);

  g_once (&once, install_handler, NULL);
  for (int i = 0; i < MAX_GUARDS; i++)
    {
      int expected = SLOT_FREE;

      if (__atomic_compare_exchange_n (&guards[i].state, &expected, SLOT_BUSY, FALSE,
                                       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        {
          guards[i].start = (guintptr) start;
          guards[i].end = (guintptr) start + length;
          guards[i].damaged = damaged;
          __atomic_store_n (&guards[i].state, SLOT_READY, __ATOMIC_RELEASE);
          return i;
        }
    }
  return -1;
}

void
_ts_map_guard_remove (int handle)
{
  if (handle < 0 || handle >= MAX_GUARDS)
    return;
  __atomic_store_n (&guards[handle].state, SLOT_BUSY, __ATOMIC_RELEASE);
  guards[handle].start = guards[handle].end = 0;
  guards[handle].damaged = NULL;
  __atomic_store_n (&guards[handle].state, SLOT_FREE, __ATOMIC_RELEASE);
}
