//! Typed resolve allocates nothing: every action of every example tool is
//! resolved under a global allocator that counts the heap operations of the
//! current thread.
//!
//! The count is per thread, so whatever the test harness does on its own
//! threads meanwhile cannot make a test pass or fail.

#[path = "../examples/tools/http_api.rs"]
mod http_api;
#[path = "../examples/tools/manage_files.rs"]
mod manage_files;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;

use annot::AnnotatedTool;
use http_api::HttpApi;
use manage_files::ManageFiles;
use serde_json::{Value, json};

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
fn heap_operations_during(work: impl FnOnce()) -> usize {
    HEAP_OPERATIONS.with(|operations| operations.set(0));
    COUNTING.with(|counting| counting.set(true));
    work();
    COUNTING.with(|counting| counting.set(false));
    HEAP_OPERATIONS.with(Cell::get)
}

/// Parses one argument set per action of `T` (in declaration order, checked
/// against `T::ACTIONS` so a new action cannot be missed), then resolves each
/// many times while counting.
fn assert_resolve_allocates_nothing<T: AnnotatedTool>(per_action: &[Value]) {
    let names: Vec<&str> = T::ACTIONS.iter().map(|action| action.name).collect();
    assert_eq!(
        per_action.len(),
        names.len(),
        "one argument set per action of {names:?}"
    );
    let values: Vec<T> = per_action
        .iter()
        .map(|arguments| T::from_arguments(arguments).expect("valid arguments"))
        .collect();
    for (value, action) in values.iter().zip(T::ACTIONS) {
        // Equal to the action's annotations unless a rule fires, and within
        // them always (rules can only lower the action's worst case).
        assert!(
            value.resolve().is_within(&action.annotations),
            "{}",
            action.name
        );
    }

    let operations = heap_operations_during(|| {
        for _ in 0..100 {
            for value in black_box(values.as_slice()) {
                black_box(value.resolve());
            }
        }
    });
    assert_eq!(operations, 0, "resolving {} touched the heap", T::NAME);
}

#[test]
fn the_counter_sees_allocations_of_this_thread() {
    let operations = heap_operations_during(|| {
        let boxed = black_box(Box::new(7_u64));
        drop(boxed);
    });
    assert_eq!(operations, 2, "one allocation and one deallocation");
    let operations = heap_operations_during(|| {
        black_box(ManageFiles::from_arguments(&json!({"action": "read", "path": "a"})).unwrap());
    });
    assert!(operations > 0, "parsing allocates the path");
}

#[test]
fn the_counter_ignores_other_threads() {
    let spawn = |allocations: usize| {
        heap_operations_during(|| {
            std::thread::scope(|scope| {
                scope.spawn(|| {
                    for _ in 0..allocations {
                        black_box(vec![1_u8; 64]);
                    }
                });
            });
        })
    };
    // Spawning allocates on this thread, and the first spawn also caches some
    // settings: warm up, then the thousand allocations of the other thread
    // must not change this thread's count.
    spawn(0);
    assert_eq!(spawn(1000), spawn(0));
}

#[test]
fn manage_files_resolves_every_action_without_allocating() {
    assert_resolve_allocates_nothing::<ManageFiles>(&[
        json!({"action": "read", "path": "notes.txt"}),
        json!({"action": "append", "path": "notes.txt", "content": "more"}),
        json!({"action": "replace", "path": "notes.txt", "content": "new"}),
        json!({"action": "delete", "path": "notes.txt"}),
    ]);
}

#[test]
fn http_request_resolves_every_method_without_allocating() {
    let per_method: Vec<Value> = HttpApi::ACTIONS
        .iter()
        .map(|action| {
            json!({
                "method": action.name,
                "path": "/v1/orders/42",
                "headers": {"accept": "application/json"},
                "body": "{}",
            })
        })
        .collect();
    assert_resolve_allocates_nothing::<HttpApi>(&per_method);
}
