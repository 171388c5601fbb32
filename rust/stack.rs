//! Whether the current thread has stack left for one more level of the recursive JSON parser
//! (`pyjson`) and encoder (`pyencode`).
//!
//! `json_scan::MAX_DEPTH` bounds their recursion, and is chosen so that an optimized build stays
//! well inside a 64 KiB thread stack at that depth. This is the safety net for a thread whose
//! stack is smaller still, or a debug build (whose frames are 3 to 6 times larger): rather than
//! overflow the stack (a segfault that kills the interpreter), they report their "too deep"
//! error at a shallower level. On a usual stack (the 8 MiB of a main thread, the default for
//! threads) the net never triggers and `MAX_DEPTH` alone decides.

/// Stack kept free below the deepest level: what the work of one level may need beyond its
/// own frame (a call into Python: a dict subclass's `items()`, `int()` of a long number, a
/// memory allocation) and the guard page, so that it can never reach the end of the stack.
const RESERVE: usize = 8 * 1024;

/// True while the stack pointer is more than [`RESERVE`] bytes above the lowest address of
/// this thread's stack (stacks grow down on every platform Linux runs CPython on). Always true
/// where the stack's bounds are unknown.
#[inline]
pub fn enough_left() -> bool {
    Floor::here().enough_left()
}

/// The calling thread's lowest usable stack address, asked for once: a parse checks every
/// level against it without a thread-local lookup each (one per container was a measurable
/// part of parsing many small objects). Only meaningful on the thread that asked.
#[derive(Debug, Clone, Copy)]
pub struct Floor(usize);

impl Floor {
    /// The floor of the calling thread.
    #[inline]
    pub fn here() -> Self {
        Self(low_water_mark())
    }

    /// [`enough_left`] against this floor; call it on the thread the floor is from.
    #[inline]
    pub fn enough_left(self) -> bool {
        let marker = 0u8;
        let here = std::ptr::addr_of!(marker) as usize;
        here > self.0
    }
}

/// The lowest stack address a level may use: the stack's lowest address plus [`RESERVE`]
/// (0 when unknown). Asked of pthreads once per thread.
#[cfg(target_os = "linux")]
fn low_water_mark() -> usize {
    use std::cell::Cell;
    thread_local! {
        /// `None` until asked for this thread.
        static MARK: Cell<Option<usize>> = const { Cell::new(None) };
    }
    MARK.with(|mark| {
        mark.get().unwrap_or_else(|| {
            let known = stack_low().map_or(0, |low| low.saturating_add(RESERVE));
            mark.set(Some(known));
            known
        })
    })
}

/// The lowest address of the calling thread's stack, from `pthread_getattr_np`. Cold and out
/// of line: its locals must not weigh on the frames of the recursion that asks.
#[cfg(target_os = "linux")]
#[cold]
#[inline(never)]
fn stack_low() -> Option<usize> {
    // SAFETY: `attr` is initialized by pthread_getattr_np before it is read, and destroyed
    // once; the calls only read the calling thread's own descriptor (or /proc for the main
    // thread).
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return None;
        }
        let mut addr: *mut libc::c_void = std::ptr::null_mut();
        let mut size: libc::size_t = 0;
        let got = libc::pthread_attr_getstack(&attr, &mut addr, &mut size);
        libc::pthread_attr_destroy(&mut attr);
        (got == 0 && !addr.is_null()).then_some(addr as usize)
    }
}

/// Other systems: the bounds are not asked for, and only `MAX_DEPTH` applies.
#[cfg(not(target_os = "linux"))]
fn low_water_mark() -> usize {
    0
}

#[cfg(test)]
mod tests {
    use super::enough_left;

    #[test]
    fn a_fresh_thread_has_stack_left_and_a_deep_recursion_runs_out() {
        fn depth_reached(level: usize) -> usize {
            // a frame of a known size, kept alive across the call
            let pad = std::hint::black_box([0u8; 512]);
            if !enough_left() {
                return level;
            }
            let deeper = depth_reached(level + 1);
            std::hint::black_box(&pad);
            deeper
        }
        let reached = std::thread::Builder::new()
            .stack_size(128 * 1024)
            .spawn(|| depth_reached(0))
            .unwrap()
            .join()
            .unwrap();
        // 128 KiB less the reserve, at a bit more than 512 bytes a level
        assert!(reached > 10, "{reached}");
        assert!(reached < 128 * 1024 / 512, "{reached}");
    }
}
