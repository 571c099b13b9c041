//! Counting heap operations: the global allocator of a test crate that
//! includes this module (`mod alloc_support;`) forwards to `System` and
//! counts what the current thread asks of it while [`heap_operations_during`]
//! runs. The count is per thread, so whatever the test harness does on its
//! own threads meanwhile cannot make a test pass or fail.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting what the current thread asks of it while
/// [`heap_operations_during`] runs.
struct CountingAllocator;

thread_local! {
    // `const` initialisers and no destructor: reading them never allocates,
    // which would recurse into the allocator.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static HEAP_OPERATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    if COUNTING.with(Cell::get) {
        HEAP_OPERATIONS.with(|operations| operations.set(operations.get() + 1));
    }
}

// SAFETY: every call is forwarded unchanged to `System`; counting touches only
// thread-local `Cell`s, which neither allocate nor unwind.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count();
        // SAFETY: the caller upholds `GlobalAlloc::dealloc`'s contract.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Runs `work` and returns how many allocations, reallocations and
/// deallocations this thread made meanwhile.
pub fn heap_operations_during(work: impl FnOnce()) -> usize {
    HEAP_OPERATIONS.with(|operations| operations.set(0));
    COUNTING.with(|counting| counting.set(true));
    work();
    COUNTING.with(|counting| counting.set(false));
    HEAP_OPERATIONS.with(Cell::get)
}
