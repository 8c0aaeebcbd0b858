//! In-memory store.
