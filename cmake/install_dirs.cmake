# Where `cmake --install` puts things (GNUInstallDirs), and the relative paths between
# those places: the installed programs, wrappers, pkg-config files and CMake package
# find each other through them, so an installed prefix still works once moved.
include(GNUInstallDirs)
file(RELATIVE_PATH TW_PREFIX_TO_BIN ${CMAKE_INSTALL_PREFIX} ${CMAKE_INSTALL_FULL_BINDIR})
file(RELATIVE_PATH TW_PREFIX_TO_LIB ${CMAKE_INSTALL_PREFIX} ${CMAKE_INSTALL_FULL_LIBDIR})
file(RELATIVE_PATH TW_PREFIX_TO_INCLUDE ${CMAKE_INSTALL_PREFIX} ${CMAKE_INSTALL_FULL_INCLUDEDIR})
file(RELATIVE_PATH TW_BIN_TO_PREFIX ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_PREFIX})
file(RELATIVE_PATH TW_BIN_TO_LIB ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
file(RELATIVE_PATH TW_PKGCONFIG_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
foreach(path TW_BIN_TO_PREFIX TW_PKGCONFIG_TO_PREFIX)
  string(REGEX REPLACE "/$" "" ${path} "${${path}}")
endforeach()

# Installed programs find libmpi and libtollway relative to themselves (the libraries
# find each other: packaging/CMakeLists.txt).
set(CMAKE_INSTALL_RPATH "$ORIGIN/${TW_BIN_TO_LIB}")

# What an MPI program links: the wrappers and the pkg-config files say it.
set(TW_MPI_LINK_LIBRARIES mpi tollway)
