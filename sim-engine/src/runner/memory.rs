//! How the process's allocator keeps the memory sensors free.
//!
//! Every update a ray sensor allocates its message's buffers (a 1800 x 16 scan about 1 MB, a
//! 640 x 480 image about 1 MB more) and frees them once the message is delivered. With
//! glibc's defaults a free that leaves more than a few hundred kilobytes at the top of the
//! heap returns them to the system, and the next update's buffers come back as fresh pages,
//! each zeroed by the kernel on first touch: about a hundred page faults per W1 scan, 15 to
//! 25 % of it on two threads (both threads fault on the pages their chunks write). A
//! simulation therefore asks glibc, once per process, to serve allocations up to 32 MB from
//! its heap and to keep up to 256 MB free there ([`keep_freed_memory`]); the memory a run
//! holds is then its peak, as with most long-running programs' allocators. The buffers are
//! the plugins', which allocate with the system's allocator also where the engine's process
//! has another (the `simcore` binary's is mimalloc).

/// Allocations up to this size come from the heap, not from a mapping of their own.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: i32 = 32 << 20;

/// Free memory at the top of the heap is returned to the system only beyond this.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TRIM_THRESHOLD: i32 = 256 << 20;

/// Sets glibc's allocator to keep freed memory for reuse (see the module docs); once per
/// process, and nothing elsewhere than on glibc.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // SAFETY: `mallopt` only sets two of glibc's allocator parameters, under its own
            // lock; it reads no memory of ours, and a value it refuses leaves the default.
            #[allow(unsafe_code)]
            let set = unsafe {
                libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                    & libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD)
            };
            if set != 1 {
                tracing::debug!("the allocator kept its defaults for freed memory");
            }
        });
    }
}
