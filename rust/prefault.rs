//! Pre-faulting large buffers on Linux. Filling a fresh multi-megabyte buffer costs one page
//! fault per 4 KiB page, and on this kind of machine those traps, not the copying, made a
//! 64 MiB event cost more per byte than a 1 MiB one (whose buffers the allocator recycles).
//! One `madvise(MADV_POPULATE_WRITE)` call faults a whole range in at once.
//!
//! Memory the allocator hands back again (a connection's body buffer, the `str` of one large
//! result after another, which glibc serves from its heap once its mmap threshold has risen) is
//! already backed: populating it faults nothing in but still walks its page tables, about 0.5 ms
//! a 16 MiB buffer here (a tenth of a 16 MiB JSON answer's CPU). A range whose first and last
//! pages are resident (`mincore`) is taken as backed and left alone; one that is only partly
//! backed faults its other pages as usual.

/// Buffers smaller than this are left to fault as usual.
pub(crate) const MIN_LEN: usize = 4 << 20;

/// Faults in the whole pages inside `[ptr, ptr + len)`, a range of a live allocation of this
/// process that is about to be written. Advice only: a kernel without the call ignores it.
#[cfg(target_os = "linux")]
pub(crate) fn populate(ptr: *const u8, len: usize) {
    const PAGE: usize = 4096;
    let start = (ptr as usize).next_multiple_of(PAGE);
    let end = (ptr as usize).saturating_add(len) & !(PAGE - 1);
    if end > start && !resident(start, end) {
        const HUGE: usize = 2 << 20;
        let huge_start = start.next_multiple_of(HUGE);
        let huge_end = end & !(HUGE - 1);
        // SAFETY: as below; MADV_HUGEPAGE only asks that the range be backed by huge pages
        if huge_end > huge_start {
            unsafe {
                libc::madvise(
                    huge_start as *mut libc::c_void,
                    huge_end - huge_start,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
        // SAFETY: MADV_POPULATE_WRITE only makes the kernel back the pages of this range (which
        // lies inside a live allocation) now rather than on first write; contents do not change.
        unsafe {
            libc::madvise(
                start as *mut libc::c_void,
                end - start,
                libc::MADV_POPULATE_WRITE,
            );
        }
    }
}

/// Whether the first and the last page of `[start, end)` (page-aligned, not empty) are backed.
#[cfg(target_os = "linux")]
fn resident(start: usize, end: usize) -> bool {
    const PAGE: usize = 4096;
    let backed = |page: usize| {
        let mut state: libc::c_uchar = 0;
        // SAFETY: `page` is page-aligned and inside a live allocation; `mincore` writes one byte
        // (one page asked for) into `state`, and only reads the page tables.
        let ok = unsafe { libc::mincore(page as *mut libc::c_void, PAGE, &mut state) } == 0;
        ok && state & 1 == 1
    };
    backed(start) && backed(end - PAGE)
}

/// Other systems: nothing to do.
#[cfg(not(target_os = "linux"))]
pub(crate) fn populate(_ptr: *const u8, _len: usize) {}

/// Keeps a growing buffer pre-faulted a few megabytes ahead of its end, once it is large.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Ahead {
    /// The buffer's address when last seen, and how many of its bytes are faulted in.
    base: usize,
    done: usize,
}

impl Ahead {
    /// A new empty buffer of `capacity` bytes, its first `len + MIN_LEN` bytes (at most all of
    /// it) already faulted in, so that copying `len` bytes into it takes no page faults, and its
    /// tracker.
    pub(crate) fn fresh(capacity: usize, len: usize) -> (Vec<u8>, Self) {
        let buf = Vec::with_capacity(capacity);
        let done = len.saturating_add(MIN_LEN).min(capacity);
        populate(buf.as_ptr(), done);
        let ahead = Self {
            base: buf.as_ptr() as usize,
            done,
        };
        (buf, ahead)
    }

    /// Call after appending to `buf`.
    #[inline]
    pub(crate) fn grown(&mut self, buf: &[u8], capacity: usize) {
        self.filled(buf.as_ptr(), buf.len(), capacity);
    }

    /// [`Ahead::grown`] for a buffer of `capacity` bytes at `base` whose first `len` bytes are
    /// written.
    #[inline]
    pub(crate) fn filled(&mut self, base: *const u8, len: usize, capacity: usize) {
        if capacity < MIN_LEN {
            return;
        }
        if self.base != base as usize {
            // a new buffer, or a moved one whose pages came along (faulting those again is
            // cheap)
            *self = Self {
                base: base as usize,
                done: len,
            };
        }
        if len >= self.done {
            let ahead = (len + MIN_LEN).min(capacity);
            populate(base.wrapping_add(self.done), ahead - self.done);
            self.done = ahead;
        }
    }
}
