//! The errors of a store: a few kinds that say what went wrong in storage
//! terms, whatever the backend. Details (the path, the system message, the
//! server's answer) go to the log where the error happens; the kind is what
//! callers act on. `crate::error` maps each kind to one netCDF error.
//!
//! Every system error of every backend goes through [`StoreError::from_io`],
//! the one table from `errno` to a kind:
//!
//! | errno | kind | why |
//! |---|---|---|
//! | ENOENT | `NotFound` | (a read of an absent object is `Ok(None)` before this) |
//! | EEXIST | `AlreadyExists` | |
//! | EISDIR, ENOTDIR | `ObjectAndPrefix` | a key is both an object and a prefix |
//! | EACCES, EPERM | `PermissionDenied` | |
//! | EROFS | `ReadOnly` | |
//! | ENOSPC, EDQUOT, EFBIG | `NoSpace` | the write itself failed |
//! | ENOMEM | `OutOfMemory` | |
//! | EMFILE, ENFILE | `TooManyFiles` | |
//! | ENAMETOOLONG | `InvalidKey` | a key too long for this file system |
//! | ELOOP | `Corrupt` | a symbolic-link loop in the tree |
//! | ENOTEMPTY | `NotEmpty` | a directory could not be removed |
//! | EIO and anything else | `Io` | |
#![forbid(unsafe_code)]

use std::fmt;
use std::io;

use crate::error::NcError;

/// What went wrong in a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StoreError {
    /// The dataset's container (directory, archive, key prefix) is not
    /// there, or vanished during a write.
    NotFound,
    /// Something is already where a dataset is being created, and it stays.
    AlreadyExists,
    /// What is at the dataset's place is not a container of this backend's
    /// kind (a file where a directory dataset goes, a directory where an
    /// archive goes).
    NotAContainer,
    /// A key would be both an object and a prefix of other objects.
    ObjectAndPrefix,
    /// A key that is not valid (or too long) for this store, or an object
    /// at the root key.
    InvalidKey,
    /// The store was opened read-only, or lives on a read-only file system.
    ReadOnly,
    /// The system or the server refused access.
    PermissionDenied,
    /// What is stored cannot be used: larger than the caller's limit,
    /// truncated, not a regular file, a link loop, a range past the end of
    /// an object, a corrupt or hostile archive.
    Corrupt,
    /// No space or quota left, or a file too large for the file system.
    NoSpace,
    /// Memory for an object could not be allocated.
    OutOfMemory,
    /// Too many open files.
    TooManyFiles,
    /// A directory could not be removed because it is not empty.
    NotEmpty,
    /// Any other failure of the operating system.
    Io,
    /// A store URL (or endpoint) that cannot be understood.
    InvalidUrl,
    /// A remote store failed (after its retries), or cannot be reached as
    /// configured (an unknown profile, refused credentials).
    Remote,
    /// A broken invariant of the store itself.
    Internal,
}

/// What a store operation returns.
pub type StoreResult<T> = Result<T, StoreError>;

impl StoreError {
    /// The kind of a system error (the one `errno` table of every backend).
    pub fn from_io(e: &io::Error) -> StoreError {
        match e.raw_os_error() {
            Some(libc::ENOENT) => StoreError::NotFound,
            Some(libc::EEXIST) => StoreError::AlreadyExists,
            Some(libc::EISDIR | libc::ENOTDIR) => StoreError::ObjectAndPrefix,
            Some(libc::EACCES | libc::EPERM) => StoreError::PermissionDenied,
            Some(libc::EROFS) => StoreError::ReadOnly,
            Some(libc::ENOSPC | libc::EDQUOT | libc::EFBIG) => StoreError::NoSpace,
            Some(libc::ENOMEM) => StoreError::OutOfMemory,
            Some(libc::EMFILE | libc::ENFILE) => StoreError::TooManyFiles,
            Some(libc::ENAMETOOLONG) => StoreError::InvalidKey,
            Some(libc::ELOOP) => StoreError::Corrupt,
            Some(libc::ENOTEMPTY) => StoreError::NotEmpty,
            Some(_) => StoreError::Io,
            // Errors made in Rust (no errno): by their kind.
            None => match e.kind() {
                io::ErrorKind::NotFound => StoreError::NotFound,
                io::ErrorKind::AlreadyExists => StoreError::AlreadyExists,
                io::ErrorKind::PermissionDenied => StoreError::PermissionDenied,
                io::ErrorKind::OutOfMemory => StoreError::OutOfMemory,
                io::ErrorKind::UnexpectedEof => StoreError::Corrupt,
                _ => StoreError::Io,
            },
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            StoreError::NotFound => "not found",
            StoreError::AlreadyExists => "already exists",
            StoreError::NotAContainer => "not a container of this kind",
            StoreError::ObjectAndPrefix => "a key would be both an object and a prefix",
            StoreError::InvalidKey => "invalid key",
            StoreError::ReadOnly => "read-only",
            StoreError::PermissionDenied => "permission denied",
            StoreError::Corrupt => "stored data is unusable",
            StoreError::NoSpace => "no space left",
            StoreError::OutOfMemory => "out of memory",
            StoreError::TooManyFiles => "too many open files",
            StoreError::NotEmpty => "directory not empty",
            StoreError::Io => "I/O failure",
            StoreError::InvalidUrl => "invalid store URL",
            StoreError::Remote => "remote store failure",
            StoreError::Internal => "internal store error",
        };
        f.write_str(s)
    }
}

impl std::error::Error for StoreError {}

/// The one mapping from a storage error to a netCDF error.
impl From<StoreError> for NcError {
    fn from(e: StoreError) -> NcError {
        use StoreError as S;
        match e {
            // What netcdf-c 4.10.1 returns for a missing `file://` dataset.
            S::NotFound => NcError::NoObject,
            S::AlreadyExists => NcError::Exist,
            S::NotAContainer => NcError::NotNc,
            S::ObjectAndPrefix => NcError::Object,
            S::InvalidKey => NcError::Inval,
            // "Write to read only".
            S::ReadOnly => NcError::Perm,
            // What netcdf-c's zmap_file returns for EACCES.
            S::PermissionDenied => NcError::Auth,
            S::Corrupt => NcError::NcZarr,
            S::NoSpace => NcError::CantWrite,
            S::OutOfMemory => NcError::NoMem,
            S::TooManyFiles => NcError::NFile,
            S::NotEmpty => NcError::CantRemove,
            S::Io => NcError::Io,
            S::InvalidUrl => NcError::Url,
            S::Remote => NcError::S3,
            S::Internal => NcError::Internal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_errors_map_to_netcdf_errors() {
        use StoreError as S;
        for (s, e) in [
            (S::NotFound, NcError::NoObject),
            (S::AlreadyExists, NcError::Exist),
            (S::NotAContainer, NcError::NotNc),
            (S::ObjectAndPrefix, NcError::Object),
            (S::InvalidKey, NcError::Inval),
            (S::ReadOnly, NcError::Perm),
            (S::PermissionDenied, NcError::Auth),
            (S::Corrupt, NcError::NcZarr),
            (S::NoSpace, NcError::CantWrite),
            (S::OutOfMemory, NcError::NoMem),
            (S::TooManyFiles, NcError::NFile),
            (S::NotEmpty, NcError::CantRemove),
            (S::Io, NcError::Io),
            (S::InvalidUrl, NcError::Url),
            (S::Remote, NcError::S3),
            (S::Internal, NcError::Internal),
        ] {
            assert_eq!(NcError::from(s), e, "{s:?}");
        }
    }

    #[test]
    fn one_table_for_every_backend() {
        let os = |n| StoreError::from_io(&io::Error::from_raw_os_error(n));
        assert_eq!(os(libc::ENOENT), StoreError::NotFound);
        // EEXIST was NC_EOBJECT in one backend and NC_EEXIST in another.
        assert_eq!(os(libc::EEXIST), StoreError::AlreadyExists);
        assert_eq!(os(libc::EISDIR), StoreError::ObjectAndPrefix);
        assert_eq!(os(libc::ENOTDIR), StoreError::ObjectAndPrefix);
        assert_eq!(os(libc::EACCES), StoreError::PermissionDenied);
        assert_eq!(os(libc::EPERM), StoreError::PermissionDenied);
        assert_eq!(os(libc::EROFS), StoreError::ReadOnly);
        for n in [libc::ENOSPC, libc::EDQUOT, libc::EFBIG] {
            assert_eq!(os(n), StoreError::NoSpace);
        }
        assert_eq!(os(libc::ENOMEM), StoreError::OutOfMemory);
        assert_eq!(os(libc::EMFILE), StoreError::TooManyFiles);
        assert_eq!(os(libc::ENFILE), StoreError::TooManyFiles);
        assert_eq!(os(libc::ENAMETOOLONG), StoreError::InvalidKey);
        assert_eq!(os(libc::ELOOP), StoreError::Corrupt);
        assert_eq!(os(libc::ENOTEMPTY), StoreError::NotEmpty);
        assert_eq!(os(libc::EIO), StoreError::Io);
        assert_eq!(os(libc::EXDEV), StoreError::Io);
        let made = |k| StoreError::from_io(&io::Error::from(k));
        assert_eq!(made(io::ErrorKind::UnexpectedEof), StoreError::Corrupt);
        assert_eq!(made(io::ErrorKind::NotFound), StoreError::NotFound);
        assert_eq!(made(io::ErrorKind::Other), StoreError::Io);
    }
}
