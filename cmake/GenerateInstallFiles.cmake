# Run by `cmake --install` (install(SCRIPT) in CMakeLists.txt, after an
# install(CODE) that sets the NCZ_* variables): writes netcdf.pc and nc-config
# with the install prefix in force at install time, so that
# `cmake --install build --prefix DIR` gets DIR in them.

foreach(_v NCZ_SOURCE_DIR NCZ_INSTALL_GEN_DIR NCZ_INSTALL_LIBDIR NCZ_INSTALL_INCLUDEDIR
           NCZ_NETCDF_VERSION)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "GenerateInstallFiles.cmake: ${_v} is not set")
  endif()
endforeach()

function(ncz_install_path out dir)
  if(IS_ABSOLUTE "${dir}")
    set(${out} "${dir}" PARENT_SCOPE)
  else()
    set(${out} "${CMAKE_INSTALL_PREFIX}/${dir}" PARENT_SCOPE)
  endif()
endfunction()

# Names used in netcdf.pc.in and nc-config.in.
set(prefix "${CMAKE_INSTALL_PREFIX}")
set(exec_prefix "${CMAKE_INSTALL_PREFIX}")
ncz_install_path(libdir "${NCZ_INSTALL_LIBDIR}")
ncz_install_path(includedir "${NCZ_INSTALL_INCLUDEDIR}")
ncz_install_path(plugindir "${NCZ_PLUGIN_INSTALL_DIR}")
set(CC "${NCZ_C_COMPILER}")
set(PACKAGE_NAME netCDF)
set(PACKAGE_VERSION "${NCZ_NETCDF_VERSION}")
set(NC_LIBS "-lnetcdf")
set(LIBS "")
foreach(_f NC2 NC4 NCZARR HDF5 HDF4 S3 DAP PARALLEL PARALLEL4 PNETCDF CDF5 SZLIB ZSTD LOGGING QUANTIZE
           MULTIFILTERS)
  set(HAS_${_f} "${NCZ_HAS_${_f}}")
endforeach()
set(STD_FILTERS "${NCZ_STD_FILTERS}")

configure_file("${NCZ_SOURCE_DIR}/netcdf.pc.in" "${NCZ_INSTALL_GEN_DIR}/netcdf.pc" @ONLY)
configure_file("${NCZ_SOURCE_DIR}/nc-config.in" "${NCZ_INSTALL_GEN_DIR}/nc-config" @ONLY)
