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
use std::cell::Cell;
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};

static IN_USE: AtomicIsize = AtomicIsize::new(0);
static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);

/// Each thread batches its allocations and frees and adds them to
/// [`IN_USE`] once they reach this many bytes either way: a shared counter
/// touched by every allocation costs a third of a parallel litmus run
/// (cache-line contention); the count is off by at most this much per
/// thread.
const FLUSH_BYTES: isize = 1 << 20;

thread_local! {
    // Const-initialised and without `Drop`: using it never allocates and
    // works during thread teardown.
    static PENDING: Cell<isize> = const { Cell::new(0) };
}

/// Records `delta` bytes allocated (negative: freed).
fn account(delta: isize) {
    let flush = PENDING.try_with(|p| {
        let v = p.get() + delta;
        if v.abs() >= FLUSH_BYTES {
            p.set(0);
            v
        } else {
            p.set(v);
            0
        }
    });
    let v = flush.unwrap_or(delta);
    if v != 0 {
        IN_USE.fetch_add(v, Ordering::Relaxed);
    }
}

/// The system allocator, counting the bytes in use.
pub struct CountingAlloc;

// SAFETY: every call is forwarded to `System` with the same arguments; the
// counter is only arithmetic on the sizes.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            account(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        account(-(layout.size() as isize));
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            account(layout.size() as isize);
        }
        p
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            account(new_size as isize - layout.size() as isize);
        }
        p
    }
}

/// Bytes in use through [`CountingAlloc`] (0 when it is not installed),
/// to within 1 MiB per thread.
pub fn in_use() -> usize {
    IN_USE.load(Ordering::Relaxed).max(0) as usize
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

/// The resource check at an engine's growth point: the time limit
/// `deadline` (none: no limit), then the memory budget
/// ([`check_memory`]).
///
/// Errors: "time limit reached", or [`check_memory`]'s message.
pub fn check_limits(deadline: Option<std::time::Instant>) -> Result<(), String> {
    if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
        return Err("time limit reached".into());
    }
    check_memory()
}

/// The budget's check at a growth point: the message of the "unknown"
/// answer when the bytes in use exceed the budget.
///
/// Errors: "memory limit reached (N MB in use; --memory)".
pub fn check_memory() -> Result<(), String> {
    if over_memory_limit() {
        return Err(format!(
            "memory limit reached ({} MB in use; --memory)",
            in_use() >> 20
        ));
    }
    Ok(())
}

/// Drops `x` on a thread of its own, so that a search stopped by a limit
/// answers without first freeing its tables (seconds for millions of
/// states); dropped here when no thread can be started.
pub fn drop_in_background<T: Send + 'static>(x: T) {
    // When no thread can be started, the closure (and `x`) is dropped here.
    let _ = std::thread::Builder::new()
        .name("drop".into())
        .spawn(move || drop(x));
}

/// The default budget: the smaller of 3/4 of the physical memory and a
/// third of what the address-space limit (`ulimit -v`) leaves beyond the
/// process's address space when this is called (code, shared libraries,
/// thread stacks and the allocator's arenas, often 200 MB), as read from
/// `/proc` (Linux); `None` when neither can be read. A third, because the
/// budget is checked between allocations: a table that doubles as it
/// grows holds its old and new copies at once (three times its size),
/// and the allocator reserves more address space than it hands out.
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
    // VmSize matters only under an address-space limit: read it then
    // only (each /proc file read is a visible share of a short run).
    let mapped = || {
        std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|t| {
                let line = t.lines().find(|l| l.starts_with("VmSize:"))?;
                let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
                kb.checked_mul(1024)
            })
            .unwrap_or(0)
    };
    let (phys, rlimit) = (
        phys.map(|m| m / 4 * 3),
        rlimit.map(|m| m.saturating_sub(mapped()) / 3),
    );
    match (phys, rlimit) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}
