//! The process's memory budget (`--memory MB`), checked by the engines at
//! their growth points so that a query that outgrows it ends in
//! "unknown: memory limit reached" (exit 3) instead of an allocation
//! failure (abort).
//!
//! Memory is counted by [`CountingAlloc`], a wrapper of the system
//! allocator that the binary installs as its global allocator; a library
//! user who does not install it gets no memory checks (the budget reads
//! zero bytes in use). The budget is process-wide because the memory is:
//! parallel inputs of a batch share it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);

/// The system allocator, counting the bytes in use.
pub struct CountingAlloc;

// SAFETY: every call is forwarded to `System` with the same arguments; the
// counter is only arithmetic on the sizes.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            IN_USE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            IN_USE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
            IN_USE.fetch_add(new_size, Ordering::Relaxed);
        }
        p
    }
}

/// Bytes in use through [`CountingAlloc`] (0 when it is not installed).
pub fn in_use() -> usize {
    IN_USE.load(Ordering::Relaxed)
}

/// Sets the memory budget in bytes (`usize::MAX`: none).
pub fn set_memory_limit(bytes: usize) {
    LIMIT.store(bytes, Ordering::Relaxed);
}

/// The memory budget in bytes (`usize::MAX`: none).
pub fn memory_limit() -> usize {
    LIMIT.load(Ordering::Relaxed)
}

/// True when the bytes in use exceed the budget.
pub fn over_memory_limit() -> bool {
    in_use() > memory_limit()
}

/// The default budget: the smaller of 3/4 of the physical memory and 1/2
/// of the address-space limit (`ulimit -v`; the rest of the address space
/// goes to stacks, code and the allocator's reserves), as read from
/// `/proc` (Linux); `None` when neither can be read.
pub fn default_memory_limit() -> Option<usize> {
    let phys = std::fs::read_to_string("/proc/meminfo").ok().and_then(|t| {
        let line = t.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
        kb.checked_mul(1024)
    });
    let rlimit = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|t| {
            let line = t.lines().find(|l| l.starts_with("Max address space"))?;
            line.split_whitespace().nth(3)?.parse::<usize>().ok()
        });
    let (phys, rlimit) = (phys.map(|m| m / 4 * 3), rlimit.map(|m| m / 2));
    match (phys, rlimit) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}
