//! The one error type of the library. Only `ffi/` turns it into an `NC_*` code.

use std::fmt;

/// Every netCDF error the engine can report. The discriminant is the C code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum NcError {
    BadId = -33,
    NFile = -34,
    Exist = -35,
    Inval = -36,
    Perm = -37,
    NotInDefine = -38,
    InDefine = -39,
    InvalCoords = -40,
    MaxDims = -41,
    NameInUse = -42,
    NotAtt = -43,
    MaxAtts = -44,
    BadType = -45,
    BadDim = -46,
    UnlimPos = -47,
    MaxVars = -48,
    NotVar = -49,
    Global = -50,
    NotNc = -51,
    Sts = -52,
    MaxName = -53,
    Unlimit = -54,
    NoRecVars = -55,
    Char = -56,
    Edge = -57,
    Stride = -58,
    BadName = -59,
    Range = -60,
    NoMem = -61,
    VarSize = -62,
    DimSize = -63,
    Trunc = -64,
    AxisType = -65,
    Dap = -66,
    Curl = -67,
    Io = -68,
    NoData = -69,
    DapSvc = -70,
    Das = -71,
    Dds = -72,
    DataDds = -73,
    Url = -74,
    Constraint = -75,
    Translation = -76,
    Access = -77,
    Auth = -78,
    NotFound = -90,
    CantRemove = -91,
    Internal = -92,
    PNetcdf = -93,
    HdfErr = -101,
    CantRead = -102,
    CantWrite = -103,
    CantCreate = -104,
    FileMeta = -105,
    DimMeta = -106,
    AttMeta = -107,
    VarMeta = -108,
    NoCompound = -109,
    AttExists = -110,
    NotNc4 = -111,
    StrictNc3 = -112,
    NotNc3 = -113,
    NoPar = -114,
    ParInit = -115,
    BadGrpId = -116,
    BadTypId = -117,
    TypDefined = -118,
    BadField = -119,
    BadClass = -120,
    MapType = -121,
    LateFill = -122,
    LateDef = -123,
    DimScale = -124,
    NoGrp = -125,
    Storage = -126,
    BadChunk = -127,
    NotBuilt = -128,
    Diskless = -129,
    CantExtend = -130,
    Mpi = -131,
    Filter = -132,
    RcFile = -133,
    NullPad = -134,
    InMemory = -135,
    NoFilter = -136,
    NcZarr = -137,
    S3 = -138,
    Empty = -139,
    Object = -140,
    NoObject = -141,
    Plugin = -142,
    NotZarr = -143,
    ZarrMeta = -144,
}

pub type NcResult<T> = Result<T, NcError>;

impl NcError {
    /// The `NC_*` integer code.
    pub fn code(self) -> i32 {
        self as i32
    }

    /// Map a C code back to the enum (None for NC_NOERR, system errors and unknown codes).
    pub fn from_code(code: i32) -> Option<NcError> {
        ALL.iter().copied().find(|e| e.code() == code)
    }
}

const ALL: &[NcError] = {
    use NcError::*;
    &[
        BadId,
        NFile,
        Exist,
        Inval,
        Perm,
        NotInDefine,
        InDefine,
        InvalCoords,
        MaxDims,
        NameInUse,
        NotAtt,
        MaxAtts,
        BadType,
        BadDim,
        UnlimPos,
        MaxVars,
        NotVar,
        Global,
        NotNc,
        Sts,
        MaxName,
        Unlimit,
        NoRecVars,
        Char,
        Edge,
        Stride,
        BadName,
        Range,
        NoMem,
        VarSize,
        DimSize,
        Trunc,
        AxisType,
        Dap,
        Curl,
        Io,
        NoData,
        DapSvc,
        Das,
        Dds,
        DataDds,
        Url,
        Constraint,
        Translation,
        Access,
        Auth,
        NotFound,
        CantRemove,
        Internal,
        PNetcdf,
        HdfErr,
        CantRead,
        CantWrite,
        CantCreate,
        FileMeta,
        DimMeta,
        AttMeta,
        VarMeta,
        NoCompound,
        AttExists,
        NotNc4,
        StrictNc3,
        NotNc3,
        NoPar,
        ParInit,
        BadGrpId,
        BadTypId,
        TypDefined,
        BadField,
        BadClass,
        MapType,
        LateFill,
        LateDef,
        DimScale,
        NoGrp,
        Storage,
        BadChunk,
        NotBuilt,
        Diskless,
        CantExtend,
        Mpi,
        Filter,
        RcFile,
        NullPad,
        InMemory,
        NoFilter,
        NcZarr,
        S3,
        Empty,
        Object,
        NoObject,
        Plugin,
        NotZarr,
        ZarrMeta,
    ]
};

/// The one mapping from a storage error to a netCDF error.
impl From<crate::storage::StoreError> for NcError {
    fn from(e: crate::storage::StoreError) -> NcError {
        use crate::storage::StoreError as S;
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

impl fmt::Display for NcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", strerror(self.code()), self.code())
    }
}

impl std::error::Error for NcError {}

/// netcdf-c's message for an error code (the text of `nc_strerror`, without
/// the system-error case, which `ffi` handles with libc).
pub fn strerror(code: i32) -> &'static str {
    match code {
        0 => "No error",
        -33 => "NetCDF: Not a valid ID",
        -34 => "NetCDF: Too many files open",
        -35 => "NetCDF: File exists && NC_NOCLOBBER",
        -36 => "NetCDF: Invalid argument",
        -37 => "NetCDF: Write to read only",
        -38 => "NetCDF: Operation not allowed in data mode",
        -39 => "NetCDF: Operation not allowed in define mode",
        -40 => "NetCDF: Index exceeds dimension bound",
        -41 => "NetCDF: NC_MAX_DIMS exceeded",
        -42 => "NetCDF: String match to name in use",
        -43 => "NetCDF: Attribute not found",
        -44 => "NetCDF: NC_MAX_ATTRS exceeded",
        -45 => "NetCDF: Not a valid data type or _FillValue type mismatch",
        -46 => "NetCDF: Invalid dimension ID or name",
        -47 => "NetCDF: NC_UNLIMITED in the wrong index",
        -48 => "NetCDF: NC_MAX_VARS exceeded",
        -49 => "NetCDF: Variable not found",
        -50 => "NetCDF: Action prohibited on NC_GLOBAL varid",
        -51 => "NetCDF: Unknown file format",
        -52 => "NetCDF: In Fortran, string too short",
        -53 => "NetCDF: NC_MAX_NAME exceeded",
        -54 => "NetCDF: NC_UNLIMITED size already in use",
        -55 => "NetCDF: nc_rec op when there are no record vars",
        -56 => "NetCDF: Attempt to convert between text & numbers",
        -57 => "NetCDF: Start+count exceeds dimension bound",
        -58 => "NetCDF: Illegal stride",
        -59 => "NetCDF: Name contains illegal characters",
        -60 => "NetCDF: Numeric conversion not representable",
        -61 => "NetCDF: Memory allocation (malloc) failure",
        -62 => "NetCDF: One or more variable sizes violate format constraints",
        -63 => "NetCDF: Invalid dimension size",
        -64 => "NetCDF: File likely truncated or possibly corrupted",
        -65 => "NetCDF: Illegal axis type",
        -66 => "NetCDF: DAP failure",
        -67 => "NetCDF: libcurl failure",
        -68 => "NetCDF: I/O failure",
        -69 => "NetCDF: Variable has no data",
        -70 => "NetCDF: DAP server error",
        -71 => "NetCDF: Malformed or inaccessible DAP DAS",
        -72 => "NetCDF: Malformed or inaccessible DAP2 DDS or DAP4 DMR response",
        -73 => "NetCDF: Malformed or inaccessible DAP2 DATADDS or DAP4 DAP response",
        -74 => "NetCDF: Malformed URL",
        -75 => "NetCDF: Malformed or unexpected Constraint",
        -76 => "NetCDF: Untranslatable construct",
        -77 => "NetCDF: Access failure",
        -78 => "NetCDF: Authorization failure",
        -90 => "NetCDF: file not found",
        -91 => "NetCDF: cannot delete file",
        -92 => "NetCDF: internal library error; Please contact Unidata support",
        -93 => "NetCDF: PnetCDF error",
        -101 => "NetCDF: HDF error",
        -102 => "NetCDF: Can't read file",
        -103 => "NetCDF: Can't write file",
        -104 => "NetCDF: Can't create file",
        -105 => "NetCDF: Can't add HDF5 file metadata",
        -106 => "NetCDF: Can't define dimensional metadata",
        -107 => "NetCDF: Can't open HDF5 attribute",
        -108 => "NetCDF: Problem with variable metadata.",
        -109 => "NetCDF: Can't create HDF5 compound type",
        -110 => "NetCDF: Attempt to create attribute that already exists",
        -111 => "NetCDF: Attempting netcdf-4 operation on netcdf-3 file",
        -112 => "NetCDF: Attempting netcdf-4 operation on strict nc3 netcdf-4 file",
        -113 => "NetCDF: Attempting netcdf-3 operation on netcdf-4 file",
        -114 => "NetCDF: Parallel operation on file opened for non-parallel access",
        -115 => "NetCDF: Error initializing for parallel access",
        -116 => "NetCDF: Bad group ID",
        -117 => "NetCDF: Bad type ID",
        -118 => "NetCDF: Type has already been defined and may not be edited",
        -119 => "NetCDF: Bad field ID",
        -120 => "NetCDF: Bad class",
        -121 => "NetCDF: Mapped access for atomic types only",
        -122 => "NetCDF: Attempt to define fill value when data already exists.",
        -123 => "NetCDF: Attempt to define var properties, like deflate, after enddef.",
        -124 => "NetCDF: Problem with HDF5 dimscales.",
        -125 => "NetCDF: No group found.",
        -126 => "NetCDF: Cannot specify both contiguous and chunking.",
        -127 => "NetCDF: Bad chunk sizes.",
        -128 => "NetCDF: Attempt to use feature that was not turned on when netCDF was built.",
        -129 => "NetCDF: Error in using diskless access",
        -130 => {
            "NetCDF: Attempt to extend dataset during NC_INDEPENDENT I/O operation. Use nc_var_par_access to set mode NC_COLLECTIVE before extending variable."
        }
        -131 => "NetCDF: MPI operation failed.",
        -132 => "NetCDF: Filter error: bad id or parameters or duplicate filter",
        -133 => "NetCDF: RC File Failure.",
        -134 => "NetCDF: File fails strict Null-Byte Header check.",
        -135 => "NetCDF: In-memory File operation failed.",
        -136 => "NetCDF: Filter error: undefined filter encountered",
        -137 => "NetCDF: NCZarr error",
        -138 => "NetCDF: S3 error",
        -139 => "NetCDF: Attempt to read empty NCZarr map key",
        -140 => "NetCDF: Some object exists when it should not",
        -141 => "NetCDF: Some object not found",
        -142 => "NetCDF: Unclassified failure in accessing a dynamically loaded plugin",
        _ => "Unknown Error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for e in ALL {
            assert_eq!(NcError::from_code(e.code()), Some(*e));
            assert_ne!(strerror(e.code()), "");
        }
        assert_eq!(NcError::from_code(0), None);
        assert_eq!(strerror(-143), "Unknown Error");
    }

    #[test]
    fn store_errors_map_to_netcdf_errors() {
        use crate::storage::StoreError as S;
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
}
