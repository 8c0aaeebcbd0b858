//! Directory-tree store (one file per key).
