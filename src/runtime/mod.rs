//! What every layer runs on: the private worker pool and the pool of
//! recycled chunk buffers. Depends on nothing else in the crate. (The
//! allocator of the library's memory is `sys::alloc`: it binds a C library.)
#![forbid(unsafe_code)]

pub mod buffers;
pub mod pool;
