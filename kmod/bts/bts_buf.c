// SPDX-License-Identifier: GPL-2.0
/*
 * The buffer of a BTS capture: kernel memory the processor stores records
 * into through its kernel linear address (SDM 17.4.9.1: the DS area holds
 * linear addresses), mapped read-only by the caller.
 *
 * Its pages are pinned as long as the capture lives, so they are charged
 * as locked memory the way perf charges its buffers (perf_mmap()): the
 * free allowance of the module parameter pt_mlock_kb per online CPU, the
 * rest to the caller's locked_vm against RLIMIT_MEMLOCK, unless
 * CAP_IPC_LOCK or pt_paranoid -1 lifts the limit (Documentation/pt.rst,
 * "Memory"; the same knobs as /dev/pt).
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/vmalloc.h>

#include "../perm.h"
#include "bts_int.h"

int bts_buf_alloc(struct bts_session *s)
{
	unsigned long pages = s->size >> PAGE_SHIFT, free, charge = 0;
	struct user_struct *user = get_current_user();

	free = ((unsigned long)READ_ONCE(pt_mlock_kb) * num_online_cpus()) >>
	       (PAGE_SHIFT - 10);
	if (pages > free)
		charge = pages - free;
	if (charge) {
		unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
		unsigned long locked;

		locked = atomic_long_add_return(charge, &user->locked_vm);
		if (locked > limit && !capable(CAP_IPC_LOCK) &&
		    READ_ONCE(pt_paranoid) >= 0) {
			atomic_long_sub(charge, &user->locked_vm);
			free_uid(user);
			return -ENOMEM;
		}
	}
	s->buf = vmalloc_user(s->size);
	if (!s->buf) {
		atomic_long_sub(charge, &user->locked_vm);
		free_uid(user);
		return -ENOMEM;
	}
	s->user = user;
	s->locked_pages = charge;
	return 0;
}

void bts_buf_free(struct bts_session *s)
{
	vfree(s->buf);
	s->buf = NULL;
	if (s->user) {
		atomic_long_sub(s->locked_pages, &s->user->locked_vm);
		free_uid(s->user);
	}
	s->user = NULL;
	s->locked_pages = 0;
}

int bts_buf_mmap(struct bts_session *s, struct vm_area_struct *vma)
{
	if (!s->buf || vma->vm_pgoff ||
	    vma->vm_end - vma->vm_start > s->size)
		return -EINVAL;
	/* The processor's records only: the caller reads, never writes. */
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	vma->vm_flags &= ~VM_MAYWRITE;
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	return remap_vmalloc_range(vma, s->buf, 0);
}
